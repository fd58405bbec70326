package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want Code
	}{
		{"nil", nil, OK},
		{"plain error is unknown", errors.New("boom"), Unknown},
		{"usage", UsageErrorf("bad kind %q", "x"), Usage},
		{"wrapped usage", fmt.Errorf("resolving: %w", UsageErrorf("bad")), Usage},
		{"silent finding", WithCode(Finding, nil), Finding},
		{"unknown", UnknownErrorf("forbidden"), Unknown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Of(tc.err); got != tc.want {
				t.Fatalf("Of(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestSilent(t *testing.T) {
	var e *Error
	if !errors.As(WithCode(Finding, nil), &e) || !e.Silent() {
		t.Fatal("a code without an error must be silent")
	}
	if errors.As(UsageErrorf("x"), &e) && e.Silent() {
		t.Fatal("a usage error must be printed")
	}
}
