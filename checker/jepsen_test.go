package checker

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// jepsenDir holds the Jepsen etcd histories and their verdicts; its
// README.md says where they come from.
const jepsenDir = "testdata/jepsen-etcd"

// jepsenCase is one Jepsen history and its known verdict.
type jepsenCase struct {
	name         string
	path         string
	linearizable bool
}

// jepsenCases reads verdicts.tsv and checks that every log has a verdict.
func jepsenCases(tb testing.TB) []jepsenCase {
	tb.Helper()
	f, err := os.Open(filepath.Join(jepsenDir, "verdicts.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var cases []jepsenCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 || fields[0] == "log" {
			continue
		}
		if fields[1] != "true" && fields[1] != "false" {
			tb.Fatalf("verdicts.tsv: %q: verdict is neither true nor false", sc.Text())
		}
		cases = append(cases, jepsenCase{name: fields[0], path: filepath.Join(jepsenDir, fields[0]), linearizable: fields[1] == "true"})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	logs, err := filepath.Glob(filepath.Join(jepsenDir, "*.log"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(logs) != len(cases) || len(cases) == 0 {
		tb.Fatalf("%s: %d logs but %d verdicts", jepsenDir, len(logs), len(cases))
	}
	return cases
}

func readJepsen(tb testing.TB, path string) History {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	h, err := ReadJepsenLog(f)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

func TestRegisterLinearizableJepsen(t *testing.T) {
	cases := jepsenCases(t)
	agree := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := readJepsen(t, c.path)
			res := RegisterLinearizable(h, LinOptions{})
			want := VerdictViolation
			if c.linearizable {
				want = VerdictOK
			}
			if res.Verdict != want {
				t.Fatalf("verdict %s, want %s (verdicts.tsv says linearizable=%v): %s", res.Verdict, want, c.linearizable, res.Summary)
			}
			agree++
		})
	}
	t.Logf("agreement with verdicts.tsv: %d of %d", agree, len(cases))
}
