package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
)

func TestRunMapsCodes(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		runErr  error
		want    int
		printed string
	}{
		{"ok", nil, nil, 0, ""},
		{"finding is silent", nil, exitcode.WithCode(exitcode.Finding, nil), 1, ""},
		{"usage is printed", nil, exitcode.UsageErrorf("bad kind"), 3, "error: bad kind"},
		{"plain error is unknown", nil, errors.New("forbidden"), 2, "error: forbidden"},
		{"unknown flag is usage", []string{"--nope"}, nil, 3, "unknown flag"},
		{"too many args is usage", []string{"a", "b"}, nil, 3, "accepts between"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := &cobra.Command{Use: "x", Args: ExactArgsRange(0, 1), RunE: func(*cobra.Command, []string) error { return tc.runErr }}
			var errOut strings.Builder
			if got := Run(context.Background(), cmd, tc.args, &errOut); got != tc.want {
				t.Fatalf("code = %d, want %d (stderr %q)", got, tc.want, errOut.String())
			}
			if !strings.Contains(errOut.String(), tc.printed) || (tc.printed == "" && errOut.Len() > 0) {
				t.Fatalf("stderr = %q, want it to contain %q", errOut.String(), tc.printed)
			}
		})
	}
}

// A kubeconfig is not always the operator's own (a shared fleet file, a CI secret): a context
// name holding an escape sequence or a newline must not rewrite the terminal or forge a
// workflow command on stderr.
func TestBannerEscapesTheContext(t *testing.T) {
	var b strings.Builder
	Banner(&b, cluster.Target{Context: "prod\x1b[2J\n::error::forged", Server: "https://10.0.0.1:6443"})
	got := b.String()
	if strings.ContainsAny(got[:len(got)-1], "\x1b\n") {
		t.Fatalf("banner carries raw control characters: %q", got)
	}
	if !strings.Contains(got, `prod\x1b[2J\n::error::forged`) {
		t.Fatalf("banner does not name the context escaped: %q", got)
	}
}
