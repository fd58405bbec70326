package saferetire

import (
	"context"
	"errors"
	"testing"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// A request the run cannot take is bad input (exit 3) naming its field, refused before the
// repository is read (Repo is no repository here).
func TestPlanBadInput(t *testing.T) {
	cases := []struct {
		name  string
		req   Request
		field string
	}{
		{"persistent kind", Request{PersistentKinds: []string{"a/b"}}, "PersistentKinds"},
		{"kube version", Request{KubeVersion: "not-a-version"}, "KubeVersion"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Repo = t.TempDir()
			_, err := Plan(context.Background(), tc.req)
			var bad *InputError
			if !errors.As(err, &bad) || bad.Field != tc.field || exitcode.Of(err) != exitcode.Usage {
				t.Fatalf("Plan: %v (exit %d), want bad input in %s", err, exitcode.Of(err), tc.field)
			}
		})
	}
}
