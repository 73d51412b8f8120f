package checker

import (
	"strings"
	"testing"
)

func TestReadJepsenLogRejects(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
	}{
		{
			name:    "empty input",
			in:      "",
			wantErr: `empty input (want jepsen.util event lines like "INFO  jepsen.util - 3 :invoke :write 4")`,
		},
		{
			name:    "blank lines only",
			in:      "\n  \t\n\n",
			wantErr: `empty input (want jepsen.util event lines like "INFO  jepsen.util - 3 :invoke :write 4")`,
		},
		{
			name:    "a history in JSON",
			in:      "{\"version\": 1,\n\"ops\": []}\n",
			wantErr: "none of its 2 lines is a jepsen.util event",
		},
		{
			name:    "a Jepsen log without events",
			in:      "INFO  jepsen.core - Running test\nINFO  jepsen.os - setting up\nWARN  jepsen.db - slow\n",
			wantErr: `none of its 3 lines is a jepsen.util event (want lines like "INFO  jepsen.util - 3 :invoke :write 4")`,
		},
		{
			name:    "a line that names jepsen.util but is no event",
			in:      "INFO  jepsen.util - starting\n",
			wantErr: "none of its 1 line is a jepsen.util event",
		},
		{
			name:    "an unknown function",
			in:      "INFO  jepsen.util - 0 :invoke :append 1\n",
			wantErr: `jepsen log line 1: unknown function ":append"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ReadJepsenLog(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("ReadJepsenLog = %d ops, %v; want an error containing %q", len(h.Ops), err, tc.wantErr)
			}
			if !strings.HasPrefix(err.Error(), "checker: jepsen log") {
				t.Errorf("error %q is not prefixed with the package", err)
			}
		})
	}
}

func TestReadJepsenLogSkipsOtherLines(t *testing.T) {
	in := strings.Join([]string{
		"INFO  jepsen.core - Running test",
		"INFO  jepsen.util - 0 :invoke :write 3",
		"INFO  jepsen.util - 0 :ok :write 3",
		"INFO  jepsen.util - 1 :invoke :read nil",
		"INFO  jepsen.util - 1 :ok :read 3",
		"INFO  jepsen.core - Run complete",
	}, "\n")
	h, err := ReadJepsenLog(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != 2 || h.Ops[0].Kind != KindWrite || h.Ops[1].Output.Value != "3" {
		t.Fatalf("ReadJepsenLog = %+v, want a write of 3 and a read of 3", h.Ops)
	}
	checkResult(t, RegisterLinearizable(h, LinOptions{}).Result, VerdictOK, "")
}
