package faults_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/seed"
	"github.com/google/go-cmp/cmp"
)

// A timeline written as JSON names every field, writes faults as text and
// durations as duration text, and reads back as the same timeline.
func TestTimelineJSON(t *testing.T) {
	tl := faults.Timeline{
		Seed: 1<<63 + 5, // above 2^53: a JSON number would lose it
		Steps: []faults.Step{
			faults.At(1500*time.Millisecond, 2*time.Second, faults.Kill(faults.Leader)),
			faults.At(4*time.Second, 0, faults.Compact()),
			faults.At(5*time.Second, 250*time.Millisecond, faults.Delay(faults.Client("c1"), 100*time.Millisecond, 20*time.Millisecond)),
		},
		Triggers: []faults.Trigger{
			faults.On(faults.Match{Kind: checker.KindAcquire, Key: "L"}, 3*time.Second, faults.Pause(faults.LockHolder("L"))),
			faults.On(faults.Match{Kind: checker.KindCampaign, Client: "c2", Key: "/e", Outcome: checker.OutcomeUnknown}, 0,
				faults.RevokeLease(faults.ElectionLeader("/e"))),
		},
		End: time.Minute,
	}
	want := `{
  "seed": "9223372036854775813",
  "steps": [
    {
      "at": "1.5s",
      "for": "2s",
      "fault": "kill(leader)"
    },
    {
      "at": "4s",
      "for": "0s",
      "fault": "compact"
    },
    {
      "at": "5s",
      "for": "250ms",
      "fault": "delay(client c1, 100ms±20ms)"
    }
  ],
  "triggers": [
    {
      "on": {
        "kind": "acquire",
        "key": "L"
      },
      "for": "3s",
      "fault": "pause(lock-holder L)"
    },
    {
      "on": {
        "kind": "campaign",
        "client": "c2",
        "key": "/e",
        "outcome": "unknown"
      },
      "for": "0s",
      "fault": "revoke-lease(election-leader /e)"
    }
  ],
  "end": "1m0s"
}`
	b, err := json.MarshalIndent(tl, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("json.MarshalIndent (-want +got):\n%s", diff)
	}
	var got faults.Timeline
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viewTimeline(tl), viewTimeline(got)); diff != "" {
		t.Errorf("json.Unmarshal (-want +got):\n%s", diff)
	}
}

// A nemesis written as JSON reads back as the same nemesis.
func TestNemesisJSON(t *testing.T) {
	n := faults.Nemesis{
		Seed: 42,
		Mix: []faults.Choice{
			faults.Weighted(3, faults.Partition(faults.Minority)),
			faults.Weighted(1, faults.Cut(faults.Leader, faults.Follower)),
			faults.Weighted(1, faults.LeaderStorm(200*time.Millisecond)),
		},
		MinFor: 500 * time.Millisecond,
		MaxFor: 2 * time.Second,
		Quiet:  time.Second,
		Steps:  8,
	}
	want := `{"seed":"42","mix":[{"weight":3,"fault":"partition(minority)"},{"weight":1,"fault":"cut(leader → follower)"},` +
		`{"weight":1,"fault":"leader-storm(every 200ms)"}],"min_for":"500ms","max_for":"2s","quiet":"1s","steps":8}`
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("json.Marshal (-want +got):\n%s", diff)
	}
	var got faults.Nemesis
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viewNemesis(n), viewNemesis(got)); diff != "" {
		t.Errorf("json.Unmarshal (-want +got):\n%s", diff)
	}
}

// Durations written by hand may be whole nanoseconds; missing fields keep
// their zero value.
func TestScheduleJSONByHand(t *testing.T) {
	var tl faults.Timeline
	in := `{"seed": 7, "steps": [{"at": 1500000000, "for": "2s", "fault": "isolate(m1)"}]}`
	if err := json.Unmarshal([]byte(in), &tl); err != nil {
		t.Fatal(err)
	}
	want := timelineView{
		Seed:  7,
		Steps: []stepView{{At: 1500 * time.Millisecond, For: 2 * time.Second, Fault: "isolate(m1)"}},
	}
	if diff := cmp.Diff(want, viewTimeline(tl)); diff != "" {
		t.Errorf("json.Unmarshal(%s) (-want +got):\n%s", in, diff)
	}

	var n faults.Nemesis
	in = `{"mix": [{"weight": 1, "fault": "kill(follower)"}], "min_for": 1000000000, "max_for": "3s"}`
	if err := json.Unmarshal([]byte(in), &n); err != nil {
		t.Fatal(err)
	}
	wantN := nemesisView{
		Mix:    []choiceView{{Weight: 1, Fault: "kill(follower)"}},
		MinFor: time.Second,
		MaxFor: 3 * time.Second,
	}
	if diff := cmp.Diff(wantN, viewNemesis(n)); diff != "" {
		t.Errorf("json.Unmarshal(%s) (-want +got):\n%s", in, diff)
	}
}

// JSON a schedule cannot hold is an error that names the field or the
// value at fault.
func TestScheduleJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		into any
		json string
		want string // substring of the error
	}{
		{"unknown timeline field", &faults.Timeline{}, `{"seed": "1", "stepz": []}`,
			`faults: timeline: json: unknown field "stepz"`},
		{"unknown step field", &faults.Timeline{}, `{"steps": [{"at": "1s", "for": "1s", "fault": "kill(leader)", "fro": "1s"}]}`,
			`faults: step: json: unknown field "fro"`},
		{"unknown match field", &faults.Timeline{}, `{"triggers": [{"on": {"kind": "acquire", "who": "c1"}, "for": "1s", "fault": "pause(lock-holder L)"}]}`,
			`faults: trigger: json: unknown field "who"`},
		{"unknown nemesis field", &faults.Nemesis{}, `{"mix": [], "min": "1s"}`,
			`faults: nemesis: json: unknown field "min"`},
		{"unknown choice field", &faults.Nemesis{}, `{"mix": [{"weight": 1, "fault": "ring", "extra": true}]}`,
			`faults: choice: json: unknown field "extra"`},
		{"unknown field of a step alone", &faults.Step{}, `{"at": "1s", "For": "1s", "fault": "compact", "heal": "1s"}`,
			`faults: step: json: unknown field "heal"`},
		{"bad duration text", &faults.Timeline{}, `{"steps": [{"at": "soon", "for": "1s", "fault": "kill(leader)"}]}`,
			`faults: step: at: bad duration "soon"`},
		{"fractional nanoseconds", &faults.Timeline{}, `{"end": 1.5}`,
			`faults: timeline: end: bad duration 1.5`},
		{"bad nemesis duration", &faults.Nemesis{}, `{"quiet": true}`,
			`faults: nemesis: quiet: bad duration true`},
		{"bad fault", &faults.Timeline{}, `{"steps": [{"at": "1s", "for": "1s", "fault": "pase(leader)"}]}`,
			`faults: parse "pase(leader)": no action "pase"; actions: pause, `},
		{"fault not a string", &faults.Nemesis{}, `{"mix": [{"weight": 1, "fault": 3}]}`,
			`faults: choice: json: cannot unmarshal number`},
		{"bad seed", &faults.Timeline{}, `{"seed": "-1"}`,
			`seed: parse "-1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec := json.NewDecoder(bytes.NewReader([]byte(tt.json)))
			err := dec.Decode(tt.into)
			if err == nil {
				t.Fatalf("decoding %s: no error; want one saying %q", tt.json, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("decoding %s: %v\nwant it to say %q", tt.json, err, tt.want)
			}
		})
	}
}

// The views below are what a test can compare of a schedule: a Fault's
// fields are unexported and hold functions, so it is compared by its text.
type timelineView struct {
	Seed     seed.Seed
	Steps    []stepView
	Triggers []triggerView
	End      time.Duration
}

type stepView struct {
	At, For time.Duration
	Fault   string
}

type triggerView struct {
	On    faults.Match
	For   time.Duration
	Fault string
}

type nemesisView struct {
	Seed           seed.Seed
	Mix            []choiceView
	MinFor, MaxFor time.Duration
	Quiet          time.Duration
	Steps          int
}

type choiceView struct {
	Weight int
	Fault  string
}

func viewTimeline(tl faults.Timeline) timelineView {
	v := timelineView{Seed: tl.Seed, End: tl.End}
	for _, s := range tl.Steps {
		v.Steps = append(v.Steps, stepView{At: s.At, For: s.For, Fault: s.Fault.String()})
	}
	for _, tr := range tl.Triggers {
		v.Triggers = append(v.Triggers, triggerView{On: tr.On, For: tr.For, Fault: tr.Fault.String()})
	}
	return v
}

func viewNemesis(n faults.Nemesis) nemesisView {
	v := nemesisView{Seed: n.Seed, MinFor: n.MinFor, MaxFor: n.MaxFor, Quiet: n.Quiet, Steps: n.Steps}
	for _, c := range n.Mix {
		v.Mix = append(v.Mix, choiceView{Weight: c.Weight, Fault: c.Fault.String()})
	}
	return v
}

// The faults of the field — freeze, flap, foreign writes, token expiry —
// go through JSON as their text and read back as the same timeline.
func TestFieldFaultsJSON(t *testing.T) {
	tl := faults.Timeline{Seed: 3, Steps: []faults.Step{
		faults.At(time.Second, 8*time.Second, faults.Freeze(faults.Pinned("c1"))),
		faults.At(10*time.Second, 5*time.Second, faults.Flap(faults.Delay(faults.Client("c2"), 50*time.Millisecond, 0), 200*time.Millisecond, 300*time.Millisecond, 10)),
		faults.At(16*time.Second, 0, faults.Put(faults.Key("/config/mode"), "foreign")),
		faults.At(17*time.Second, 0, faults.Delete(faults.LockHolder("L"))),
		faults.At(18*time.Second, 0, faults.ExpireToken(faults.AllClients)),
	}}
	b, err := json.Marshal(tl)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"fault":"flap(delay(client c2, 50ms±0s), down 200ms, up 300ms, ×10)"`) {
		t.Errorf("the flap's JSON: %s", b)
	}
	var got faults.Timeline
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for i, st := range got.Steps {
		if st.String() != tl.Steps[i].String() {
			t.Errorf("step %d read back as %q; want %q", i, st, tl.Steps[i])
		}
	}
}
