package seed

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSeedRoundTripsThroughJSON(t *testing.T) {
	for _, s := range []Seed{0, 1, 1<<53 + 1, 1<<63 + 3, 1<<64 - 1} {
		b, err := json.Marshal(struct{ Seed Seed }{s})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"`+s.String()+`"`) {
			t.Errorf("seed %d is not written as a string: %s", uint64(s), b)
		}
		var back struct{ Seed Seed }
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.Seed != s {
			t.Errorf("seed %d came back as %d", uint64(s), uint64(back.Seed))
		}
	}
}

func TestSeedReadsNumbersAndRejectsNonsense(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		want    Seed
		wantErr string
	}{
		{name: "number", json: `42`, want: 42},
		{name: "string", json: `"18446744073709551615"`, want: 1<<64 - 1},
		{name: "negative", json: `-3`, wantErr: "want a whole number from 0 to 18446744073709551615"},
		{name: "fraction", json: `1.5`, wantErr: `seed: parse "1.5"`},
		{name: "words", json: `"lucky"`, wantErr: `seed: parse "lucky"`},
		{name: "too big", json: `"18446744073709551616"`, wantErr: "want a whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Seed
			err := json.Unmarshal([]byte(tt.json), &s)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			case tt.wantErr == "" && s != tt.want:
				t.Errorf("got %d, want %d", uint64(s), uint64(tt.want))
			}
		})
	}
}

func TestSeedRandIsDeterministicPerStream(t *testing.T) {
	a, b := Seed(7).Rand(1), Seed(7).Rand(1)
	c := Seed(7).Rand(2)
	x, y, z := a.Uint64(), b.Uint64(), c.Uint64()
	if x != y {
		t.Error("one seed and stream gave two sequences")
	}
	if x == z {
		t.Error("two streams of one seed gave the same first value")
	}
}
