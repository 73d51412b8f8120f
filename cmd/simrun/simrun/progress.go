package simrun

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/etcdsim/etcdsim/scenarios/results"
)

// progress hears about runs as they finish. Its methods are called from
// one goroutine.
type progress interface {
	start(total int)
	finished(o results.SummaryRun)
	stop()
}

// newProgress returns a progress bar on w when w is a terminal, and
// otherwise a progress that writes one line per finished run.
func newProgress(w io.Writer) progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &barProgress{w: w}
	}
	return &lineProgress{w: w}
}

// lineProgress writes one plain line per finished run, for logs.
type lineProgress struct {
	w     io.Writer
	total int
	n     int
}

func (p *lineProgress) start(total int) { p.total = total }
func (p *lineProgress) stop()           {}

func (p *lineProgress) finished(o results.SummaryRun) {
	if o.Retried { // its row goes on, on the next seed
		fmt.Fprintf(p.w, "[retry] %s\n", runLine(o))
		return
	}
	p.n++
	fmt.Fprintf(p.w, "[%d/%d] %s\n", p.n, p.total, runLine(o))
}

// runLine says in one line how a run went: status, name, seed, duration,
// why.
func runLine(o results.SummaryRun) string {
	status := "met"
	switch {
	case o.Interrupted:
		status = "STOP"
	case o.Error != "":
		status = "ERROR"
	case o.ScheduleErr != "":
		status = "SCHED"
	case o.Retried:
		status = "RETRY"
	case !o.Met:
		status = "MISSED"
	}
	return fmt.Sprintf("%-6s %s seed=%s %v: %s", status, o.Label(), o.Seed, o.Duration.D().Round(10*time.Millisecond), o.Why)
}

// barProgress draws a progress bar: runs done of all, violations found,
// expectations missed, elapsed time and ETA. A missed run is also written
// as a line above the bar.
type barProgress struct {
	w                  io.Writer
	bar                *progressbar.ProgressBar
	violations, missed int
	quit               chan struct{}
	wg                 sync.WaitGroup
}

func (p *barProgress) start(total int) {
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionShowCount(),
		progressbar.OptionSetItsString("runs"),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionClearOnFinish(),
	)
	p.describe()
	p.quit = make(chan struct{})
	p.wg.Go(func() { // keeps the elapsed time moving between runs
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.bar.Add(0) //nolint:errcheck // a terminal write
			case <-p.quit:
				return
			}
		}
	})
}

func (p *barProgress) describe() {
	p.bar.Describe(fmt.Sprintf("%d with violations, %d expectations missed", p.violations, p.missed))
}

func (p *barProgress) finished(o results.SummaryRun) {
	if o.ViolationCount() > 0 {
		p.violations++
	}
	if !o.Met {
		if !o.Retried && !o.Interrupted {
			p.missed++
		}
		p.bar.Clear() //nolint:errcheck // a terminal write
		fmt.Fprintln(p.w, runLine(o))
	}
	p.describe()
	if !o.Retried { // its row goes on, on the next seed
		p.bar.Add(1) //nolint:errcheck // a terminal write
	}
}

func (p *barProgress) stop() {
	close(p.quit)
	p.wg.Wait()
	p.bar.Finish() //nolint:errcheck // a terminal write
}
