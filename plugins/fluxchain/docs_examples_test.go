package fluxchain

import (
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/testsupport/docexamples"
)

// Every `kubectl flux-chain` the documents show names only flags the command has, and each
// concrete example parses and passes Validate, without a cluster or a repository. fleet.md is
// fleet mode's, checked with it.
func TestDocExamples(t *testing.T) {
	exs, err := docexamples.Find("../../docs", "flux-chain", "fleet.md")
	if err != nil {
		t.Fatal(err)
	}
	concrete := 0
	for _, ex := range exs {
		o := NewFluxChainOptions(genericiooptions.NewTestIOStreamsDiscard())
		cmd := newCmd(o)
		if unknown := docexamples.UnknownFlags(cmd, ex); len(unknown) > 0 {
			t.Errorf("%s: %s: the command has no %v", ex.Where(), ex.Text, unknown)
			continue
		}
		if !ex.Concrete {
			continue
		}
		concrete++
		if err := docexamples.Parse(cmd, ex); err != nil {
			t.Errorf("%s: %s: %v", ex.Where(), ex.Text, err)
			continue
		}
		if err := o.Validate(); err != nil {
			t.Errorf("%s: %s: %v", ex.Where(), ex.Text, err)
		}
	}
	if concrete < 3 {
		t.Fatalf("found %d concrete examples of flux-chain in docs/ (of %d), want at least 3: is the extraction broken?", concrete, len(exs))
	}
}
