package results_test

import (
	"encoding"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// Each file of testdata/golden, read with its reader and written again
// with its writer, is byte for byte what the file holds: what simrun
// wrote is what this package reads, nothing dropped, nothing added.
func TestGoldenRoundTrip(t *testing.T) {
	src := filepath.Join("testdata", "golden")
	out := t.TempDir()
	run := filepath.Join(src, goldenRun)

	sum, err := results.ReadSummary(filepath.Join(src, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := results.WriteSummary(out, sum); err != nil {
		t.Fatal(err)
	}
	s, err := results.ReadScenario(filepath.Join(run, results.ScenarioFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := results.WriteScenario(filepath.Join(out, results.ScenarioFile), s); err != nil {
		t.Fatal(err)
	}
	r, err := results.ReadRun(run)
	if err != nil {
		t.Fatal(err)
	}
	if err := results.WriteRun(out, r); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		results.SummaryFile:  filepath.Join(src, results.SummaryFile),
		results.ScenarioFile: filepath.Join(run, results.ScenarioFile),
		results.ResultFile:   filepath.Join(run, results.ResultFile),
		results.HistoryFile:  filepath.Join(run, results.HistoryFile),
	} {
		w, err := os.ReadFile(want)
		if err != nil {
			t.Fatal(err)
		}
		g, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(w), string(g)); diff != "" {
			t.Errorf("%s does not round-trip (-file +written):\n%s", want, diff)
		}
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("the writers left %s behind", e.Name())
		}
	}
}

// The schema of each file is held still: testdata/schema/<file>.txt lists
// every field, its JSON name and its type, and the version the file is
// written with. A field added, renamed, retyped or dropped shows here
// first; it needs a new version (SummaryVersion, scenarios.SchemaVersion,
// checker.HistoryVersion), and then go test -update rewrites the list.
func TestSchemaGolden(t *testing.T) {
	for _, tt := range []struct {
		file    string
		version int
		v       any
	}{
		{results.SummaryFile, results.SummaryVersion, results.Summary{}},
		{results.ScenarioFile, scenarios.SchemaVersion, scenarios.Scenario{}},
		{results.ResultFile, scenarios.SchemaVersion, scenarios.Result{}},
		{results.HistoryFile, checker.HistoryVersion, checker.History{}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			var b strings.Builder
			fmt.Fprintf(&b, "%s version %d\n", tt.file, tt.version)
			describe(&b, reflect.TypeOf(tt.v), "", map[reflect.Type]bool{})
			got := b.String()
			golden := filepath.Join("testdata", "schema", strings.TrimSuffix(tt.file, ".json")+".txt")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("the schema of %s changed (-%s +now):\n%s\nGive the file a new version, then run go test -update.", tt.file, golden, diff)
			}
		})
	}
}

var (
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	timeType      = reflect.TypeFor[time.Time]()
)

// describe writes the JSON form of t, one line per field, indented under
// its parent; a struct type met before is named, not described again.
func describe(b *strings.Builder, t reflect.Type, indent string, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == timeType || t.Implements(jsonMarshaler) || t.Implements(textMarshaler) {
		return
	}
	if seen[t] {
		fmt.Fprintf(b, "%s(%s, as above)\n", indent, t)
		return
	}
	seen[t] = true
	defer delete(seen, t)
	var lines []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" {
			describe(b, f.Type, indent, seen)
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		line := fmt.Sprintf("%s%s %s", indent, name, jsonType(f.Type))
		if opts != "" {
			line += " (" + opts + ")"
		}
		var sub strings.Builder
		describe(&sub, element(f.Type), indent+"  ", seen)
		lines = append(lines, line+"\n"+sub.String())
	}
	sort.Strings(lines)
	b.WriteString(strings.Join(lines, ""))
}

// element is the type whose fields a value of t holds: t's element for a
// slice, map or pointer, else t.
func element(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t
}

// jsonType names the JSON form of t.
func jsonType(t reflect.Type) string {
	switch {
	case t == timeType:
		return "time"
	case t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler):
		return "json(" + t.String() + ")"
	case t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler):
		return "text(" + t.String() + ")"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + jsonType(t.Elem())
	case reflect.Slice, reflect.Array:
		return "[]" + jsonType(t.Elem())
	case reflect.Map:
		return "map[" + jsonType(t.Key()) + "]" + jsonType(t.Elem())
	case reflect.Struct:
		return "{" + t.String() + "}"
	case reflect.Interface:
		return "any(" + t.String() + ")"
	}
	return t.Kind().String()
}
