package recipe

import (
	"errors"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/google/go-cmp/cmp"
)

type newFunc func() string

func ok() string { return "ok" }

var overlap = checker.Expectation{Checker: checker.CheckerMutualExclusion, Violation: checker.ViolationOverlap}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		recipe Recipe[newFunc]
		want   []string // substrings of the error; none means valid
	}{
		{name: "correct", recipe: Recipe[newFunc]{Name: "mutex", Summary: "s", New: ok}},
		{name: "broken with expectation", recipe: Recipe[newFunc]{Name: "marker", Broken: true, Expect: overlap,
			Upstream: "https://github.com/etcd-io/etcd/issues/11360", New: ok}},
		{name: "no name", recipe: Recipe[newFunc]{New: ok}, want: []string{"recipe (unnamed)", "empty Name"}},
		{name: "bad name", recipe: Recipe[newFunc]{Name: "My Lock", New: ok}, want: []string{`Name "My Lock"`, "lower-case"}},
		{name: "nil constructor", recipe: Recipe[newFunc]{Name: "x"}, want: []string{"New is nil"}},
		{name: "unknown family", recipe: Recipe[newFunc]{Name: "x", Family: "stack", New: ok},
			want: []string{`Family "stack"`, "lock election discovery register rwmutex queue barrier plain-barrier stm"}},
		{name: "broken without expectation", recipe: Recipe[newFunc]{Name: "x", Broken: true, New: ok},
			want: []string{"Broken with no Expect", "mutual-exclusion"}},
		{name: "broken expecting an unknown checker", recipe: Recipe[newFunc]{Name: "x", Broken: true, New: ok,
			Expect: checker.Expectation{Checker: "mutex"}}, want: []string{"Expect:", `"mutex"`}},
		{name: "correct with an expectation", recipe: Recipe[newFunc]{Name: "x", Expect: overlap, New: ok},
			want: []string{"Broken is false"}},
		{name: "upstream not a URL", recipe: Recipe[newFunc]{Name: "x", Broken: true, Expect: overlap, Upstream: "etcd#1", New: ok},
			want: []string{`Upstream "etcd#1"`, "https URL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.recipe.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate: no error, want one saying %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate: %v\nwant it to say %q", err, w)
				}
			}
		})
	}
}

func TestRegistryLookup(t *testing.T) {
	reg := NewRegistry(Lock,
		Recipe[newFunc]{Name: "mutex", New: ok},
		Recipe[newFunc]{Name: "fenced", New: ok},
		Recipe[newFunc]{Name: "released-marker", Broken: true, Expect: overlap, New: ok},
	)
	r, err := reg.Lookup("fenced")
	if err != nil || r.Name != "fenced" || r.Family != Lock {
		t.Fatalf("Lookup(fenced) = %+v, %v", r, err)
	}
	_, err = reg.Lookup("fencd")
	if !errors.Is(err, ErrUnknown) {
		t.Fatalf("Lookup(fencd): %v, want ErrUnknown", err)
	}
	if want := `no recipe named "fencd" among lock recipes; have fenced, mutex, released-marker`; err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
	if diff := cmp.Diff([]string{"mutex", "fenced", "released-marker"}, reg.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
}

// Upstream recipes are found by Lookup, listed by Upstream and by the
// unknown-name error, and left out of All; a registry refuses an upstream
// recipe named as one of its gallery.
func TestRegistryWithUpstream(t *testing.T) {
	gallery := NewRegistry(Lock, Recipe[newFunc]{Name: "mutex", New: ok})
	reg := gallery.WithUpstream(
		Recipe[newFunc]{Name: "unlock-retry", Broken: true, Expect: overlap,
			Upstream: "https://github.com/etcd-io/etcd/issues/22082", New: ok},
		Recipe[newFunc]{Name: "unlock-retry-fenced", New: ok},
	)
	if r, err := reg.Lookup("unlock-retry"); err != nil || r.Name != "unlock-retry" || r.Family != Lock {
		t.Errorf("Lookup(unlock-retry) = %+v, %v", r, err)
	}
	if r, err := reg.Lookup("mutex"); err != nil || r.Name != "mutex" {
		t.Errorf("Lookup(mutex) = %+v, %v", r, err)
	}
	if diff := cmp.Diff([]string{"mutex"}, names(reg.All())); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"unlock-retry", "unlock-retry-fenced"}, names(reg.Upstream())); diff != "" {
		t.Errorf("Upstream (-want +got):\n%s", diff)
	}
	if _, err := gallery.Lookup("unlock-retry"); err == nil {
		t.Error("WithUpstream changed the registry it was called on")
	}
	_, err := reg.Lookup("unlock-retyr")
	if want := `no recipe named "unlock-retyr" among lock recipes; have unlock-retry, unlock-retry-fenced, mutex`; err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %q", err, want)
	}
	defer func() {
		if p, _ := recover().(string); !strings.Contains(p, "recipe mutex registered twice") {
			t.Errorf("panic %q, want one saying the name is taken", p)
		}
	}()
	gallery.WithUpstream(Recipe[newFunc]{Name: "mutex", New: ok})
}

func names[New any](rs []Recipe[New]) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

func TestRegistryRefusesBadEntries(t *testing.T) {
	for _, tt := range []struct {
		name    string
		recipes []Recipe[newFunc]
		want    string
	}{
		{"broken with no expectation", []Recipe[newFunc]{{Name: "x", Broken: true, New: ok}}, "lock registry: recipe x: Broken with no Expect"},
		{"twice", []Recipe[newFunc]{{Name: "x", New: ok}, {Name: "x", New: ok}}, "recipe x registered twice"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				p := recover()
				if s, _ := p.(string); !strings.Contains(s, tt.want) {
					t.Errorf("panic %v, want one saying %q", p, tt.want)
				}
			}()
			NewRegistry(Lock, tt.recipes...)
		})
	}
}

// A family's unknown-name error reads as its prefix and the registry's
// error, once, and is both the family's sentinel and ErrUnknown.
func TestUnknown(t *testing.T) {
	family := errors.New("lock: no recipe named")
	reg := NewRegistry(Lock, Recipe[func()]{Name: "mutex", Summary: "s", New: func() {}})
	_, lookupErr := reg.Lookup("mutx")
	err := Unknown("lock: ", family, lookupErr)
	if got, want := err.Error(), `lock: no recipe named "mutx" among lock recipes; have mutex`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, family) || !errors.Is(err, ErrUnknown) {
		t.Errorf("errors.Is: family %v, ErrUnknown %v; want both", errors.Is(err, family), errors.Is(err, ErrUnknown))
	}
}
