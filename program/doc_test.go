package program_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProtocolPageAdapter: docs/protocol.md shows examples/python/adapter.py
// whole, and it stays under 60 lines.
func TestProtocolPageAdapter(t *testing.T) {
	page, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("../examples/python/adapter.py")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(page), "```python\n")
	if !ok {
		t.Fatal("docs/protocol.md has no python block")
	}
	shown, _, _ := strings.Cut(rest, "```\n")
	if diff := cmp.Diff(string(file), shown); diff != "" {
		t.Errorf("docs/protocol.md's adapter differs from examples/python/adapter.py (-file +page):\n%s", diff)
	}
	if n := strings.Count(shown, "\n"); n >= 60 {
		t.Errorf("the adapter has %d lines; the page promises fewer than 60", n)
	}
}
