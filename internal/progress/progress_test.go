package progress

import (
	"context"
	"testing"
)

func TestDescribe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ctx, tr := Track(ctx)
	if got := tr.Describe(); got != "" {
		t.Errorf("nothing under way: %q", got)
	}
	doneA := Begin(ctx, "building tier %s", "a")
	doneB := Begin(ctx, "building tier %s", "b")
	doneA()
	if got := tr.Describe(); got != "building tier b" {
		t.Errorf("under way: %q", got)
	}
	for i := range 25 {
		Begin(ctx, "extracting %02d", i)
	}
	cancel()
	doneB() // ends after the context did: still named
	want := "building tier b, extracting 00, extracting 01, extracting 02, extracting 03, extracting 04, extracting 05, extracting 06, extracting 07, extracting 08, extracting 09, extracting 10, extracting 11, extracting 12, extracting 13, extracting 14, extracting 15, extracting 16, extracting 17, extracting 18 and 6 more"
	if got := tr.Describe(); got != want {
		t.Errorf("at the end:\n got %q\nwant %q", got, want)
	}
	if done := Begin(context.Background(), "x"); done == nil {
		t.Error("Begin without a tracker returned nil")
	} else {
		done()
	}
}
