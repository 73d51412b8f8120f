package program

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A program's standard error is what it says of itself: why it refused
// init, the exception it died of. Its end is kept in memory (tail) for the
// messages that name the program, and, with Config.StderrDir, all of it in
// a file of the run's.

// tailLines is how many of a program's last stderr lines a message quotes.
const tailLines = 10

// said is the end of the program's stderr, as "; its stderr ended: …" to
// add to a message, naming the file that keeps all of it; "" if it wrote
// none.
func (p *prog) said() string {
	t := p.tail.String()
	if t == "" {
		return ""
	}
	lines := strings.Split(t, "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	msg := "; its stderr ended: " + strings.Join(lines, " | ")
	if p.stderr != nil {
		msg += " (all of it in " + p.stderr.Name() + ")"
	}
	return msg
}

// clientText names the client the program was started for, as " (client
// c1)", or "" if it is not known.
func (p *prog) clientText() string {
	if p.client == "" {
		return ""
	}
	return " (client " + p.client + ")"
}

// stderrFile creates the file in dir that keeps the stderr of a program
// started for client: client.stderr, or client-2.stderr, -3… if taken.
func stderrFile(dir, client string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("keeping its stderr: %w", err)
	}
	if client == "" {
		client = "program"
	}
	for n := 1; ; n++ {
		name := client + ".stderr"
		if n > 1 {
			name = client + "-" + strconv.Itoa(n) + ".stderr"
		}
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("keeping its stderr: %w", err)
		}
		return f, nil
	}
}
