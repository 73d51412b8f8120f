package reports

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"

	"github.com/etcdsim/etcdsim/scenarios/results"
)

// The JUnit XML that CI systems read: one testcase per run.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname  string        `xml:"classname,attr"`
	Name       string        `xml:"name,attr"`
	Time       string        `xml:"time,attr"`
	Properties *junitProps   `xml:"properties,omitempty"`
	Failure    *junitFailure `xml:"failure,omitempty"`
	Error      *junitFailure `xml:"error,omitempty"`
	Skipped    *junitSkipped `xml:"skipped,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitProps struct {
	List []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// JUnit renders the campaign as JUnit XML: a testsuite per scenario
// family and a testcase per run, named by scenario and seed, carrying the
// seed and the replay command as properties. A run that missed its
// expectation fails with every violation's sentence; a run that could not
// be loaded is an error; a run the interrupt stopped before its verdict is
// skipped, with why: it neither passed nor failed.
func JUnit(c *results.Dir) []byte {
	suites := junitSuites{Name: "etcdsim"}
	at := map[string]int{}
	seconds := map[string]float64{} // each suite's time
	suite := func(name string) *junitSuite {
		i, ok := at[name]
		if !ok {
			i = len(suites.Suites)
			at[name] = i
			suites.Suites = append(suites.Suites, junitSuite{Name: name})
		}
		return &suites.Suites[i]
	}
	for _, r := range c.Runs {
		res := r.Result
		secs := res.Timings.Total.D().Seconds()
		tc := junitCase{
			Classname: family(r),
			Name:      r.Label() + " seed " + res.Scenario.Seed.String(),
			Time:      fmt.Sprintf("%.3f", secs),
			Properties: &junitProps{List: []junitProperty{
				{Name: "seed", Value: res.Scenario.Seed.String()},
				{Name: "replay", Value: res.Replay},
				{Name: "expect", Value: expect(r).String()},
				{Name: "verdict", Value: res.Verdict.String()},
			}},
		}
		s := suite(family(r))
		seconds[s.Name] += secs
		if res.ScheduleErr != "" {
			// Not a verdict on the recipe: the run did not test what its
			// scenario says.
			tc.Error = &junitFailure{Message: "the fault schedule did not run as written: " + res.ScheduleErr, Type: "schedule-error",
				Body: "replay: " + res.Replay}
			s.Errors++
			suites.Errors++
		} else if !res.Met {
			body := strings.Join(violationSentences(r), "\n")
			if body != "" {
				body += "\n"
			}
			body += "replay: " + res.Replay
			tc.Failure = &junitFailure{Message: "expected " + expect(r).String() + "; " + res.Why, Type: "missed-expectation", Body: body}
			s.Failures++
			suites.Failures++
		}
		s.Tests++
		suites.Tests++
		s.Cases = append(s.Cases, tc)
	}
	for _, f := range c.Interrupted {
		s := suite("interrupted")
		s.Tests++
		s.Skipped++
		suites.Tests++
		suites.Skipped++
		s.Cases = append(s.Cases, junitCase{Classname: "interrupted", Name: f.Dir, Time: "0.000",
			Skipped: &junitSkipped{Message: "interrupted before its verdict: " + f.Err.Error()}})
	}
	for _, f := range c.Failed {
		s := suite("unloadable")
		s.Tests++
		s.Errors++
		suites.Tests++
		suites.Errors++
		s.Cases = append(s.Cases, junitCase{Classname: "unloadable", Name: f.Dir, Time: "0.000",
			Error: &junitFailure{Message: "the run could not be loaded", Type: "load-error", Body: f.Err.Error()}})
	}
	for i := range suites.Suites {
		suites.Suites[i].Time = fmt.Sprintf("%.3f", seconds[suites.Suites[i].Name])
	}
	b, err := xml.MarshalIndent(suites, "", "  ")
	if err != nil {
		panic(err) // plain structs of strings and numbers
	}
	return append([]byte(xml.Header), append(b, '\n')...)
}

func writeFile(path string, b []byte) error {
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}
