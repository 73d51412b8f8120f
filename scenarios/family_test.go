package scenarios

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/recipe"
)

// Every family of the table has every part the engine reads, and the
// table agrees with the recipe registries' list of families.
func TestFamilyTableIsWhole(t *testing.T) {
	if got, want := Families(), recipe.Families(); !slices.Equal(got, want) {
		t.Errorf("Families() = %v; internal/recipe.Families() = %v: a family needs both, in the same order", got, want)
	}
	seen := map[string]bool{}
	for _, f := range families {
		t.Run(f.name, func(t *testing.T) {
			switch {
			case f.name == "" || seen[f.name]:
				t.Fatalf("family %q: empty or listed twice", f.name)
			case f.key == "":
				t.Error("no default key")
			case len(f.checkers) == 0:
				t.Error("no default checkers")
			case len(f.slots) == 0:
				t.Error("no slot for a program's own recipe: a user cannot plug one in")
			case f.run == nil:
				t.Error("no workload")
			case f.gallery == nil:
				t.Error("no gallery")
			}
			seen[f.name] = true
			for _, c := range f.checkers {
				if err := (checker.Expectation{Checker: c}).Validate(); err != nil {
					t.Errorf("default checker %s: %v", c, err)
				}
			}
			for _, k := range f.knobs {
				if !slices.ContainsFunc(familyKnobs, func(fk struct {
					name string
					set  func(Workload) bool
				}) bool {
					return fk.name == k
				}) {
					t.Errorf("knob %q is none of familyKnobs", k)
				}
			}
			gallery := f.gallery()
			if len(gallery) == 0 {
				t.Error("the gallery is empty")
			}
			for _, s := range gallery {
				if s.Workload.Family != f.name || !strings.HasPrefix(s.Name, f.name+"/") {
					t.Errorf("gallery scenario %s is of family %q", s.Name, s.Workload.Family)
				}
				if err := s.Validate(); err != nil {
					t.Errorf("gallery scenario %s: %v", s.Name, err)
				}
			}
			for _, sl := range f.slots {
				if sl.field == "" || sl.own == nil || sl.lookup == nil || sl.carry == nil || !strings.HasPrefix(sl.with, "With") {
					t.Errorf("slot %+v lacks a part", sl)
				}
				if _, ok := reflect.TypeFor[Scenario]().MethodByName(sl.with); !ok {
					t.Errorf("slot %s: Scenario has no method %s", sl.field, sl.with)
				}
			}
		})
	}
}

// Every recipe field of Workload — a Go value JSON cannot carry — is a
// slot of some family, so that Validate checks it, the child carries it
// and With… sets it.
func TestEveryRecipeFieldIsASlot(t *testing.T) {
	var own Workload
	v := reflect.ValueOf(&own).Elem()
	fields := 0
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Tag.Get("json") != "-" || !recipeKind(f.Type) {
			continue
		}
		fields++
		if f.Type.Kind() == reflect.Func {
			v.Field(i).Set(reflect.MakeFunc(f.Type, func([]reflect.Value) []reflect.Value { panic("never called") }))
		} else {
			v.Field(i).Set(reflect.New(f.Type.Elem()))
		}
	}
	var carried Workload
	carried.CarryRecipes(own)
	cv := reflect.ValueOf(carried)
	slots := 0
	for _, f := range families {
		slots += len(f.slots)
	}
	for i := range cv.NumField() {
		f := cv.Type().Field(i)
		if f.Tag.Get("json") == "-" && recipeKind(f.Type) && cv.Field(i).IsNil() {
			t.Errorf("Workload.%s is a recipe field no family's slot carries", f.Name)
		}
	}
	if slots != fields {
		t.Errorf("%d slots in the family table for %d recipe fields of Workload", slots, fields)
	}
}

// recipeKind reports whether a Workload field of type t can hold a user's
// recipe value: a recipe (a pointer) or a function such as a decoder.
func recipeKind(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer || t.Kind() == reflect.Func
}

// A family-only field set on another family is refused, naming the
// families that take it, from the table.
func TestKnobsNameTheirFamilies(t *testing.T) {
	s := Scenario{Name: "stm/x/y", Workload: Workload{Family: FamilySTM, Writes: 3, Stagger: Duration(1)}}
	err := s.Validate()
	for _, want := range []string{"workload.writes is for the lock and plain-barrier families only, not stm",
		"workload.stagger is for the barrier family only, not stm"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v\nwant it to say %q", err, want)
		}
	}
}

// The package doc and the README name every family's constructors and
// With… methods, and each constructor exists.
func TestDocNamesEveryFamily(t *testing.T) {
	var src strings.Builder
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src.Write(b)
		}
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if len(f.safety) == 0 {
			t.Errorf("family %s names no constructor for a user's recipe", f.name)
		}
		var names []string
		for _, c := range f.safety {
			if !strings.Contains(src.String(), "\nfunc "+c+"(") {
				t.Errorf("family %s: no func %s in package scenarios", f.name, c)
			}
			names = append(names, c)
		}
		for _, sl := range f.slots {
			names = append(names, sl.with)
		}
		for _, n := range names {
			if !strings.Contains(string(readme), "`"+n+"`") && !strings.Contains(string(readme), "`"+n+"(") && !strings.Contains(string(readme), "."+n+"(") {
				t.Errorf("README.md does not name %s (family %s)", n, f.name)
			}
			if strings.HasSuffix(n, "Safety") && !strings.Contains(string(doc), n) {
				t.Errorf("doc.go does not name %s (family %s)", n, f.name)
			}
		}
	}
}
