package simrun

import (
	"reflect"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"
)

// Every recipe a Workload holds as a Go value — the fields JSON cannot
// carry — reaches the child from the program's own scenario, so that a
// recipe field added later cannot be forgotten here.
func TestWithOwnRecipeCarriesEveryRecipeField(t *testing.T) {
	var own scenarios.Scenario
	w := reflect.ValueOf(&own.Workload).Elem()
	var fields []string
	for i := range w.NumField() {
		f := w.Type().Field(i)
		if f.Tag.Get("json") != "-" || f.Type.Kind() != reflect.Pointer {
			continue
		}
		w.Field(i).Set(reflect.New(f.Type.Elem()))
		fields = append(fields, f.Name)
	}
	if len(fields) < 8 {
		t.Fatalf("found the recipe fields %v; the Workload has more (Lock, Election, …)", fields)
	}
	var s scenarios.Scenario
	withOwnRecipe(&s, own)
	got := reflect.ValueOf(s.Workload)
	for _, name := range fields {
		if got.FieldByName(name).IsNil() {
			t.Errorf("Workload.%s is not carried to the child", name)
		}
	}
}
