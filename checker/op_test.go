package checker

import "testing"

// TestOperationString: an operation describes each field it uses by its
// own name, so a report says what an enqueue's priority or a drain's look
// at an empty queue was, not a token or a missing key.
func TestOperationString(t *testing.T) {
	tests := []struct {
		name string
		op   Operation
		want string
	}{
		{"a priority enqueue", mk("p1", KindEnqueue, "Q", 5, 6, withIn(Input{Value: "job", Priority: 2})),
			`op 0 (p1 enqueue Q value="job" priority=2 [5.000s, 6.000s] ok)`},
		{"a drain that saw the queue empty", mk("c1", KindDequeue, "Q", 6, 7, withOut(Output{Empty: true})),
			`op 0 (c1 dequeue Q → empty [6.000s, 7.000s] ok)`},
		{"a fenced write", mk("c1", KindGuardedWrite, "L", 1, 2, withIn(Input{Value: "v", Token: 7})),
			`op 0 (c1 guarded-write L value="v" token=7 [1.000s, 2.000s] ok)`},
		{"a read of a missing key", mk("c1", KindRead, "k", 1, 2, withOut(Output{Missing: true})),
			`op 0 (c1 read k → missing [1.000s, 2.000s] ok)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.op.String(); got != tt.want {
				t.Errorf("String() = %s, want %s", got, tt.want)
			}
		})
	}
}
