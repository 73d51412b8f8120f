package lock

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestResourceCountsOverlaps(t *testing.T) {
	tests := []struct {
		name string
		// steps: "+x" enters x, "-x" ends x's section.
		steps        []string
		wantOverlaps []Overlap
		wantHolders  []string
	}{
		{name: "one at a time", steps: []string{"+a", "-a", "+b", "-b"}},
		{name: "b enters while a is inside", steps: []string{"+a", "+b", "-a", "-b"},
			wantOverlaps: []Overlap{{Entrant: "b", Inside: []string{"a"}}}},
		{name: "three deep", steps: []string{"+a", "+b", "+c"},
			wantOverlaps: []Overlap{{Entrant: "b", Inside: []string{"a"}}, {Entrant: "c", Inside: []string{"a", "b"}}},
			wantHolders:  []string{"a", "b", "c"}},
		{name: "exit twice ends once", steps: []string{"+a", "-a", "-a", "+b"}, wantHolders: []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Resource
			exits := map[string]func(){}
			for _, s := range tt.steps {
				who := s[1:]
				if s[0] == '+' {
					exits[who] = r.Enter(who)
				} else {
					exits[who]()
				}
			}
			if diff := cmp.Diff(tt.wantOverlaps, r.Overlaps(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("overlaps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantHolders, r.Holders(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("holders (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFencedResourceRefusesLowerTokens(t *testing.T) {
	tests := []struct {
		name         string
		writes       []Write
		wantAccepted []Write
		wantRejected []Write
	}{
		{name: "increasing", writes: []Write{{5, "a", "1"}, {7, "b", "2"}},
			wantAccepted: []Write{{5, "a", "1"}, {7, "b", "2"}}},
		{name: "same token twice", writes: []Write{{5, "a", "1"}, {5, "a", "2"}},
			wantAccepted: []Write{{5, "a", "1"}, {5, "a", "2"}}},
		{name: "stale holder after a newer one", writes: []Write{{5, "a", "1"}, {7, "b", "2"}, {5, "a", "3"}},
			wantAccepted: []Write{{5, "a", "1"}, {7, "b", "2"}}, wantRejected: []Write{{5, "a", "3"}}},
		{name: "no tokens fence nothing", writes: []Write{{0, "a", "1"}, {0, "b", "2"}, {0, "a", "3"}},
			wantAccepted: []Write{{0, "a", "1"}, {0, "b", "2"}, {0, "a", "3"}}},
		{name: "no token after a token", writes: []Write{{5, "a", "1"}, {0, "b", "2"}},
			wantAccepted: []Write{{5, "a", "1"}}, wantRejected: []Write{{0, "b", "2"}}},
	}
	var empty FencedResource
	if w, ok := empty.Last(); ok {
		t.Errorf("Last() of an empty resource = %+v, true; want false", w)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f FencedResource
			for _, w := range tt.writes {
				err := f.Write(w.Token, w.Who, w.Value)
				if err != nil && !errors.Is(err, ErrStaleToken) {
					t.Errorf("Write(%+v): %v, want nil or ErrStaleToken", w, err)
				}
			}
			if diff := cmp.Diff(tt.wantAccepted, f.Accepted(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("accepted (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRejected, f.Rejected(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("rejected (-want +got):\n%s", diff)
			}
			last, ok := f.Last()
			if want := tt.wantAccepted[len(tt.wantAccepted)-1]; !ok || last != want {
				t.Errorf("Last() = %+v, %v; want %+v, true", last, ok, want)
			}
		})
	}
}

// A read presenting a token fences like a write: once the successor has
// read, the superseded holder that read before it cannot write.
func TestFencedResourceFencesReads(t *testing.T) {
	var f FencedResource
	if _, ok, err := f.Read(5, "a"); ok || err != nil {
		t.Fatalf("first read: %v, %v; want nothing and no error", ok, err)
	}
	if err := f.Write(5, "a", "1"); err != nil {
		t.Fatal(err)
	}
	if w, ok, err := f.Read(7, "b"); !ok || err != nil || w.Value != "1" {
		t.Fatalf("b's read: %+v, %v, %v; want a's write", w, ok, err)
	}
	if err := f.Write(5, "a", "2"); !errors.Is(err, ErrStaleToken) {
		t.Errorf("a's write after b's read: %v, want ErrStaleToken", err)
	}
	if _, _, err := f.Read(5, "a"); !errors.Is(err, ErrStaleToken) {
		t.Errorf("a's read after b's: %v, want ErrStaleToken", err)
	}
	if _, _, err := f.Read(0, "c"); err != nil {
		t.Errorf("a read without a token: %v, want none (it fences nothing)", err)
	}
	if f.Highest() != 7 {
		t.Errorf("Highest() = %d, want 7", f.Highest())
	}
}
