package progress

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

func TestWarningsSaidOnce(t *testing.T) {
	ctx, w := CollectWarnings(context.Background())
	for i := range 7 {
		Warn(ctx, "deprecated", fmt.Sprintf("f%d", i%7), "f0")
	}
	Warn(ctx, "alone")
	Warn(context.Background(), "nobody listens", "x") // no collector: nothing, no panic
	want := []string{"alone (1 build)", "deprecated (7 builds: f0, f1, f2, f3, f4 and 2 more)"}
	if got := w.Lines("build"); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
