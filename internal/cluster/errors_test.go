package cluster

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/exitcode"
)

func TestReadError(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	target := Target{Context: "prod", Server: "https://10.0.0.1:6443"}
	cases := []struct {
		name string
		err  error
		want exitcode.Code
	}{
		{"not found is bad input", apierrors.NewNotFound(gr, "x"), exitcode.Usage},
		{"forbidden is unknown", apierrors.NewForbidden(gr, "x", errors.New("rbac")), exitcode.Unknown},
		{"timeout is unknown", apierrors.NewTimeoutError("slow", 1), exitcode.Unknown},
		{"refused is unknown", errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), exitcode.Unknown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitcode.Of(ReadError(target, "reading pods/x", tc.err)); got != tc.want {
				t.Fatalf("code = %v, want %v", got, tc.want)
			}
		})
	}
}
