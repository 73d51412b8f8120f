package faults_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/faults"
	"github.com/google/go-cmp/cmp"
)

// Every fault a constructor builds, but Custom, reads back from its String
// as the same fault.
func TestParseRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		fault faults.Fault
		want  string // its String
	}{
		{"kill the leader", faults.Kill(faults.Leader), "kill(leader)"},
		{"kill a member", faults.Kill(faults.Member(2)), "kill(m2)"},
		{"stop a follower", faults.Stop(faults.Follower), "stop(follower)"},
		{"isolate the minority", faults.Isolate(faults.Minority), "isolate(minority)"},
		{"isolate an election's leader", faults.Isolate(faults.ElectionLeader("E")), "isolate(election-leader E)"},
		{"partition the minority", faults.Partition(faults.Minority), "partition(minority)"},
		{"partition the majority", faults.Partition(faults.Majority), "partition(majority)"},
		{"pause a lock's holder", faults.Pause(faults.LockHolder("L")), "pause(lock-holder L)"},
		{"pause the holder of a path", faults.Pause(faults.LockHolder("/locks/a-1.b")), "pause(lock-holder /locks/a-1.b)"},
		{"pause every client", faults.Pause(faults.AllClients), "pause(all-clients)"},
		{"crash a client", faults.Crash(faults.Client("c1")), "crash(client c1)"},
		{"delay a client", faults.Delay(faults.Client("c1"), 100*time.Millisecond, 20*time.Millisecond), "delay(client c1, 100ms±20ms)"},
		{"delay without jitter", faults.Delay(faults.Member(0), 1500*time.Millisecond, 0), "delay(m0, 1.5s±0s)"},
		// The constructor takes these; Validate refuses them.
		{"delay below its jitter", faults.Delay(faults.Leader, 10*time.Millisecond, 20*time.Millisecond), "delay(leader, 10ms±20ms)"},
		{"negative delay", faults.Delay(faults.Client("c1"), -time.Second, 0), "delay(client c1, -1s±0s)"},
		{"reset every client", faults.Reset(faults.AllClients), "reset(all-clients)"},
		{"lose a client's responses", faults.LoseResponses(faults.Client("worker-2")), "lose-responses(client worker-2)"},
		{"cut the leader from a follower", faults.Cut(faults.Leader, faults.Follower), "cut(leader → follower)"},
		{"cut a member from the majority", faults.Cut(faults.Member(1), faults.Majority), "cut(m1 → majority)"},
		{"ring", faults.Ring(), "ring"},
		{"freeze the leader", faults.Freeze(faults.Leader), "freeze(leader)"},
		{"expire a client's token", faults.ExpireToken(faults.Client("c1")), "expire-token(client c1)"},
		{"delete a key", faults.Delete(faults.Key("/config/a")), "delete(key:/config/a)"},
		{"flap the leader's isolation", faults.Flap(faults.Isolate(faults.Leader), 200*time.Millisecond, 300*time.Millisecond, 5), "flap(isolate(leader), down 200ms, up 300ms, ×5)"},
		{"flap a delay, whose text has a comma", faults.Flap(faults.Delay(faults.Client("c1"), 100*time.Millisecond, 20*time.Millisecond), time.Second, time.Second, 2), "flap(delay(client c1, 100ms±20ms), down 1s, up 1s, ×2)"},
		// The constructor takes these; Validate refuses them.
		{"flap with no period", faults.Flap(faults.Cut(faults.Leader, faults.Follower), 0, 0, 0), "flap(cut(leader → follower), down 0s, up 0s, ×0)"},
		{"delete a prefix", faults.Delete(faults.Prefix("/locks/")), "delete(prefix:/locks/)"},
		{"delete a lock holder's key", faults.Delete(faults.LockHolder("/locks/L")), "delete(lock-holder /locks/L)"},
		{"overwrite a key", faults.Put(faults.Key("/config/a"), "v2"), "put(key:/config/a, v2)"},
		{"overwrite an election leader's key", faults.Put(faults.ElectionLeader("E"), "impostor"), "put(election-leader E, impostor)"},
		{"freeze the member a client is pinned to", faults.Freeze(faults.Pinned("c1")), "freeze(pinned c1)"},
		{"compact", faults.Compact(), "compact"},
		{"defrag every member", faults.Defrag(faults.AllMembers), "defrag(all-members)"},
		{"replace a member", faults.Replace(faults.Member(0)), "replace(m0)"},
		{"revoke a lock holder's lease", faults.RevokeLease(faults.LockHolder("L")), "revoke-lease(lock-holder L)"},
		{"revoke an election leader's lease", faults.RevokeLease(faults.ElectionLeader("/election/e")), "revoke-lease(election-leader /election/e)"},
		{"leader storm", faults.LeaderStorm(100 * time.Millisecond), "leader-storm(every 100ms)"},
		{"leader storm without an interval", faults.LeaderStorm(0), "leader-storm(every 0s)"},
		{"leader kill storm", faults.LeaderKillStorm(2 * time.Second), "leader-kill-storm(every 2s)"},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.fault.String()); diff != "" {
				t.Fatalf("String (-want +got):\n%s", diff)
			}
			got, err := faults.Parse(tt.want)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(viewFault(tt.fault), viewFault(got)); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.want, diff)
			}
			again, err := faults.Parse(got.String())
			if err != nil {
				t.Fatalf("Parse of its own String: %v", err)
			}
			if diff := cmp.Diff(viewFault(got), viewFault(again)); diff != "" {
				t.Errorf("Parse(String()) (-want +got):\n%s", diff)
			}
			text, err := tt.fault.MarshalText()
			if err != nil {
				t.Fatalf("MarshalText: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(text)); diff != "" {
				t.Errorf("MarshalText (-want +got):\n%s", diff)
			}
		})
		action, _, _ := strings.Cut(tt.want, "(")
		covered[action] = true
	}
	// The error for no action lists every action: each has a case above.
	_, err := faults.Parse("")
	if err == nil {
		t.Fatal(`Parse(""): no error`)
	}
	_, list, _ := strings.Cut(err.Error(), "actions: ")
	for _, a := range strings.Split(list, ", ") {
		if !covered[a] {
			t.Errorf("action %q has no round-trip case", a)
		}
	}
}

// faultView is what a test can compare of a Fault: its fields are
// unexported, and hold functions.
type faultView struct {
	String  string
	Targets []string
	Instant bool
}

func viewFault(f faults.Fault) faultView {
	d := faultView{String: f.String(), Instant: f.Instant()}
	for _, t := range f.Targets() {
		d.Targets = append(d.Targets, t.String())
	}
	return d
}

// Every target reads back from its String as the same target.
func TestParseTargetRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		target faults.Target
		want   string
	}{
		{"leader", faults.Leader, "leader"},
		{"follower", faults.Follower, "follower"},
		{"minority", faults.Minority, "minority"},
		{"majority", faults.Majority, "majority"},
		{"member", faults.Member(3), "m3"},
		{"member zero", faults.Member(0), "m0"},
		{"all members", faults.AllMembers, "all-members"},
		{"client", faults.Client("c1"), "client c1"},
		{"all clients", faults.AllClients, "all-clients"},
		{"lock holder", faults.LockHolder("/locks/L"), "lock-holder /locks/L"},
		{"election leader", faults.ElectionLeader("e-1.v2"), "election-leader e-1.v2"},
		{"pinned", faults.Pinned("c1"), "pinned c1"},
		{"key", faults.Key("/config/a-1"), "key:/config/a-1"},
		{"prefix", faults.Prefix("/svc/"), "prefix:/svc/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.target.String()); diff != "" {
				t.Fatalf("String (-want +got):\n%s", diff)
			}
			got, err := faults.ParseTarget(tt.want)
			if err != nil {
				t.Fatalf("ParseTarget: %v", err)
			}
			if got != tt.target {
				t.Errorf("ParseTarget(%q) = %v; want %v", tt.want, got, tt.target)
			}
		})
	}
}

// Parse takes the ASCII spellings and loose spacing, and writes them back
// in String's form.
func TestParseOtherSpellings(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string
	}{
		{"ascii arrow", "cut(leader->follower)", "cut(leader → follower)"},
		{"ascii arrow with spaces", "cut(m0 -> m1)", "cut(m0 → m1)"},
		{"ascii plus-minus", "delay(client c1, 100ms+-20ms)", "delay(client c1, 100ms±20ms)"},
		{"no jitter", "delay(m1, 5ms)", "delay(m1, 5ms±0s)"},
		{"spaces", "  kill ( m2 )  ", "kill(m2)"},
		{"spaces inside", "delay( client  c1 ,100ms ± 20ms )", "delay(client c1, 100ms±20ms)"},
		{"interval in other units", "leader-storm(every 1500ms)", "leader-storm(every 1.5s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := faults.Parse(tt.text)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, f.String()); diff != "" {
				t.Errorf("Parse(%q).String() (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// A text Parse cannot read is an error that quotes it, names the part
// that is wrong and says what would be right.
func TestParseErrors(t *testing.T) {
	custom := faults.Custom("wobble", faults.Leader, nil)
	tests := []struct {
		name string
		text string
		want []string // substrings of the error
	}{
		{"unknown action", "pase(leader)", []string{`no action "pase"; actions: pause, `, "compact", "leader-kill-storm"}},
		{"custom fault without its prefix", custom.String(), []string{`no action "wobble"`, `a Custom fault is written "custom <name>(<target>)"`}},
		{"nothing", "", []string{"no action; actions: compact, crash, cut, "}},
		{"missing closing parenthesis", "kill(leader", []string{`missing ")"`, "write kill(<target>)"}},
		{"missing opening parenthesis", "kill leader", []string{`missing "(" after kill`, "write kill(<target>)"}},
		{"no arguments", "isolate", []string{"isolate needs arguments", "write isolate(<target>)"}},
		{"arguments to an action without", "ring(leader)", []string{"ring takes no arguments"}},
		{"two targets for one", "kill(leader → follower)", []string{"kill takes 1 target, got 2", `"leader", "follower"`}},
		{"one target for two", "cut(leader)", []string{"cut takes 2 targets, got 1", "write cut(<target> → <target>)"}},
		{"three targets for two", "cut(m0 → m1 → m2)", []string{"cut takes 2 targets, got 3"}},
		{"two arguments for one", "kill(leader, follower)", []string{"kill takes 1 argument, got 2"}},
		{"delay without its duration", "delay(client c1)", []string{"delay takes 2 arguments, got 1", "write delay(<target>, <delay>±<jitter>)"}},
		{"no target", "kill()", []string{"no target; targets: leader, follower"}},
		{"unknown target", "kill(leaderr)", []string{`no target "leaderr"; targets: leader, `, "lock-holder <lock>", "m<i>"}},
		{"role with a name", "kill(leader m1)", []string{`leader takes no name, got "m1"`}},
		{"client without a name", "pause(client)", []string{"client needs a client name; write client <name>"}},
		{"lock name with a space", "pause(lock-holder my lock)", []string{`lock name "my lock" has a space`, "names may not contain spaces or commas"}},
		{"client name with a comma", "pause(client a,b)", []string{"pause takes 1 argument, got 2", "names may not contain commas"}},
		{"member with a leading zero", "kill(m02)", []string{`member "m02" is written m2`}},
		{"bad delay", "delay(client c1, 10x±1ms)", []string{`bad delay "10x"`, "100ms or 1.5s"}},
		{"bad jitter", "delay(client c1, 10ms±soon)", []string{`bad jitter "soon"`}},
		{"storm without every", "leader-storm(100ms)", []string{`want "every <interval>", got "100ms"`}},
		{"bad interval", "leader-storm(every fast)", []string{`bad interval "fast"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := faults.Parse(tt.text)
			if err == nil {
				t.Fatalf("Parse(%q) = %v; want an error saying %q", tt.text, f, tt.want)
			}
			prefix := `faults: parse "` + tt.text + `": `
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("error %q does not start with %q", err, prefix)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Parse(%q): %v\nwant it to say %q", tt.text, err, w)
				}
			}
		})
	}
}

func TestParseTargetErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"unknown", "nobody", []string{`no target "nobody"`, "election-leader <election>"}},
		{"close to a role", "lock-holders L", []string{`no target "lock-holders"; targets: lock-holder <lock>, `}},
		{"election name with a space", "election-leader my election", []string{`election name "my election" has a space`}},
		{"client name with a comma", "client a,b", []string{`client name "a,b" has a comma`}},
		{"lock name with an arrow", "lock-holder a->b", []string{`lock name "a->b" has an arrow`}},
		{"member out of range", "m99999999999999999999", []string{`member "m99999999999999999999"`, "out of range"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := faults.ParseTarget(tt.text)
			if err == nil {
				t.Fatalf("ParseTarget(%q) = %v; want an error saying %q", tt.text, got, tt.want)
			}
			prefix := `faults: parse target "` + tt.text + `": `
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("error %q does not start with %q", err, prefix)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ParseTarget(%q): %v\nwant it to say %q", tt.text, err, w)
				}
			}
		})
	}
}

// A Fault is a JSON string; one that has no text form cannot be written.
func TestFaultText(t *testing.T) {
	b, err := json.Marshal(faults.Pause(faults.LockHolder("L")))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`"pause(lock-holder L)"`, string(b)); diff != "" {
		t.Errorf("json.Marshal (-want +got):\n%s", diff)
	}
	var f faults.Fault
	if err := json.Unmarshal([]byte(`"cut(leader -> m2)"`), &f); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("cut(leader → m2)", f.String()); diff != "" {
		t.Errorf("json.Unmarshal (-want +got):\n%s", diff)
	}

	tests := []struct {
		name  string
		fault faults.Fault
		want  string
	}{
		{"zero", faults.Fault{}, "faults: the zero Fault has no text form"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.fault.MarshalText(); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("MarshalText: %v; want %q", err, tt.want)
			}
			if _, err := json.Marshal(faults.At(0, time.Second, tt.fault)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("json.Marshal of a step: %v; want it to say %q", err, tt.want)
			}
		})
	}
}

// A Custom fault is written by name and read back as a fault known by
// name only: a step holding one goes into a run's files and out again as
// the same text, and the fault read back, fired, fails with a sentence
// saying where its function lives rather than running something else.
func TestCustomFaultByName(t *testing.T) {
	wobble := faults.Custom("wobble", faults.Client("c1"), nil)
	if !wobble.IsCustom() || wobble.NameOnly() {
		t.Errorf("Custom: IsCustom %v, NameOnly %v; want true, false", wobble.IsCustom(), wobble.NameOnly())
	}
	b, err := json.Marshal(faults.At(time.Second, 2*time.Second, wobble))
	if err != nil {
		t.Fatalf("json.Marshal of a step with a custom fault: %v", err)
	}
	if want := `{"at":"1s","for":"2s","fault":"custom wobble(client c1)"}`; string(b) != want {
		t.Errorf("json.Marshal = %s, want %s", b, want)
	}
	var st faults.Step
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if !st.Fault.NameOnly() || !st.Fault.IsCustom() || st.Fault.String() != "wobble(client c1)" {
		t.Errorf("read back: %v, NameOnly %v, IsCustom %v; want wobble(client c1), name only", st.Fault, st.Fault.NameOnly(), st.Fault.IsCustom())
	}
	b2, err := json.Marshal(st)
	if err != nil || string(b2) != string(b) {
		t.Errorf("written again: %s, %v; want %s", b2, err, b)
	}
}

// exampleOf is a fault of every action, for the step round trip; a new
// action without one here fails TestParseStepRoundTrip.
var exampleOf = map[string]faults.Fault{
	"compact":           faults.Compact(),
	"crash":             faults.Crash(faults.Client("c1")),
	"cut":               faults.Cut(faults.Member(0), faults.Majority),
	"defrag":            faults.Defrag(faults.AllMembers),
	"delay":             faults.Delay(faults.Client("c2"), 20*time.Millisecond, 5*time.Millisecond),
	"freeze":            faults.Freeze(faults.Pinned("worker-2")),
	"expire-token":      faults.ExpireToken(faults.LockHolder("L")),
	"flap":              faults.Flap(faults.Partition(faults.Minority), 100*time.Millisecond, 200*time.Millisecond, 3),
	"delete":            faults.Delete(faults.Prefix("/svc/")),
	"put":               faults.Put(faults.Key("k"), "foreign"),
	"isolate":           faults.Isolate(faults.LockHolder("/locks/a:b")),
	"kill":              faults.Kill(faults.Leader),
	"leader-kill-storm": faults.LeaderKillStorm(2 * time.Second),
	"leader-storm":      faults.LeaderStorm(200 * time.Millisecond),
	"lose-responses":    faults.LoseResponses(faults.Client("worker-2")),
	"partition":         faults.Partition(faults.Minority),
	"pause":             faults.Pause(faults.ElectionLeader("E")),
	"replace":           faults.Replace(faults.Follower),
	"reset":             faults.Reset(faults.AllClients),
	"revoke-lease":      faults.RevokeLease(faults.LockHolder("L")),
	"ring":              faults.Ring(),
	"stop":              faults.Stop(faults.Member(2)),
}

// A step of every action reads back from its String as the same step: the
// one text form campaign files are written in.
func TestParseStepRoundTrip(t *testing.T) {
	for _, action := range faults.Actions() {
		t.Run(action, func(t *testing.T) {
			f, ok := exampleOf[action]
			if !ok {
				t.Fatalf("no example fault of action %q in exampleOf", action)
			}
			d := 1500 * time.Millisecond
			if f.Instant() {
				d = 0
			}
			step := faults.At(250*time.Millisecond, d, f)
			text := step.String()
			got, err := faults.ParseStep(text)
			if err != nil {
				t.Fatalf("ParseStep(%q): %v", text, err)
			}
			if got.At != step.At || got.For != step.For {
				t.Errorf("ParseStep(%q): at %v for %v, want at %v for %v", text, got.At, got.For, step.At, step.For)
			}
			if diff := cmp.Diff(viewFault(f), viewFault(got.Fault)); diff != "" {
				t.Errorf("ParseStep(%q) fault (-want +got):\n%s", text, diff)
			}
			if again := got.String(); again != text {
				t.Errorf("String of the parsed step %q, want %q", again, text)
			}
		})
	}
	for _, tt := range []struct{ step, want string }{
		{faults.At(time.Second, 2*time.Second, faults.Kill(faults.Leader)).String(), "at 1s for 2s: kill(leader)"},
		{faults.At(4*time.Second, 0, faults.Compact()).String(), "at 4s: compact"},
	} {
		if tt.step != tt.want {
			t.Errorf("String %q, want %q", tt.step, tt.want)
		}
	}
}

// Other spacings read as the same step.
func TestParseStepSpacing(t *testing.T) {
	for _, text := range []string{"at 1s for 2s: kill(leader)", "  at  1s  for 2s :kill( leader ) ", "at 1000ms for 2s:kill(leader)"} {
		got, err := faults.ParseStep(text)
		if err != nil {
			t.Errorf("ParseStep(%q): %v", text, err)
			continue
		}
		if s := got.String(); s != "at 1s for 2s: kill(leader)" {
			t.Errorf("ParseStep(%q) = %q", text, s)
		}
	}
}

// Bad step text is an error that quotes the text and says how a step is
// written.
func TestParseStepErrors(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"the old order", "kill(leader) at 1s for 2s", []string{`no ":" before the fault`, "at <time>[ for <duration>]: <fault>"}},
		{"no at", "1s for 2s: kill(leader)", []string{`"1s for 2s" before the fault`, `want "at <time>"`}},
		{"for without a duration", "at 1s for: kill(leader)", []string{`"at 1s for" before the fault`}},
		{"bad time", "at soon: compact", []string{`bad time "soon"`}},
		{"negative time", "at -1s: compact", []string{"time -1s is negative"}},
		{"bad duration", "at 1s for ever: kill(leader)", []string{`bad duration "ever"`}},
		{"lasting fault without a duration", "at 1s: kill(leader)", []string{"needs a positive duration", "at 1s for 2s: kill(leader)"}},
		{"instant fault with a duration", "at 1s for 2s: compact", []string{"compact is instant", "at 4s: compact"}},
		{"bad fault", "at 1s for 2s: kil(leader)", []string{`no action "kil"`, "kill"}},
		{"nothing", "", []string{`no ":" before the fault`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, err := faults.ParseStep(tt.text)
			if err == nil {
				t.Fatalf("ParseStep(%q) = %v; want an error", tt.text, st)
			}
			if prefix := `faults: parse step "` + tt.text + `": `; !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("error %q does not start with %q", err, prefix)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ParseStep(%q): %v\nwant it to say %q", tt.text, err, w)
				}
			}
		})
	}
}
