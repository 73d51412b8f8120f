// Package reports renders what a person reads after simrun: a page per run,
// a campaign page over a results directory, and JUnit XML and Markdown for
// CI. The JSON a run writes (result.json and history.json) is the source of
// truth, read through package scenarios/results; every page is a view of
// it, rendered with html/template from embedded assets into one
// self-contained HTML file that opens from file:// without a network.
//
// A run's page (report.html in its directory) shows the run's header, a
// timeline of every client's operations with the fault windows shaded and
// each violation's operations highlighted, a latency plot, and every
// checker's result in full. Linearizability results get porcupine's own
// visualization as a sibling file.
//
// An exploration's directory (simrun explore) gets findings.html from its
// findings.json: the distinct ways the recipe broke, each with its
// sentence, smallest reproduction, seed and replay command, linked to its
// smallest run's page (RenderFindings).
//
// A results directory's page (index.html) shows a scenarios × runs matrix,
// detection rates, run-time percentiles, and the runs that could not be
// loaded, with junit.xml and summary.md beside it:
//
//	if err := reports.RenderDir("results/gallery"); err != nil {
//		log.Print(err) // the runs that could not be loaded; the rest are rendered
//	}
package reports
