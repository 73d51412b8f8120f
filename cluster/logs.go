package cluster

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// tailLines is how many of a member's last log lines are kept in memory.
const tailLines = 40

// memberLog is where one member's etcd logs go: always a ring of the last
// lines, for error messages, and a file when Config.LogDir is set. It lives
// as long as the member, across restarts.
type memberLog struct {
	mu   sync.Mutex // guards ring, next, full, file
	ring [tailLines]string
	next int
	full bool
	file *os.File
}

func newMemberLog(logDir, name string) (*memberLog, error) {
	l := &memberLog{}
	if logDir != "" {
		if err := os.MkdirAll(logDir, 0o755); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(logDir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		l.file = f
	}
	return l, nil
}

// Write takes one encoded entry (zap writes whole entries).
func (l *memberLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for line := range bytes.Lines(p) {
		l.ring[l.next] = string(bytes.TrimRight(line, "\n"))
		l.next = (l.next + 1) % tailLines
		if l.next == 0 {
			l.full = true
		}
	}
	if l.file != nil {
		return l.file.Write(p)
	}
	return len(p), nil
}

func (l *memberLog) Sync() error { return nil }

// tail returns the last n lines, oldest first.
func (l *memberLog) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var lines []string
	if l.full {
		lines = append(lines, l.ring[l.next:]...)
	}
	lines = append(lines, l.ring[:l.next]...)
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func (l *memberLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		return nil
	}
	err := l.file.Close()
	l.file = nil
	return err
}

// logger returns the zap logger etcd writes through. A fatal log panics
// instead of exiting the process, so a member's death cannot take the test
// binary with it; Start turns the panic into an error.
func (l *memberLog) logger(name string) *zap.Logger {
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(enc), l, zapcore.InfoLevel)
	return zap.New(core, zap.WithFatalHook(zapcore.WriteThenPanic)).Named(name)
}
