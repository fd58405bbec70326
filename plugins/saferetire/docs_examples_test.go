package saferetire

import (
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/testsupport/docexamples"
)

// Every `kubectl safe-retire` the documents show names only flags the command has, and each
// concrete example parses and passes Validate, without a cluster or a repository.
func TestDocExamples(t *testing.T) {
	exs, err := docexamples.Find("../../docs", "safe-retire")
	if err != nil {
		t.Fatal(err)
	}
	concrete := 0
	for _, ex := range exs {
		o := NewSafeRetireOptions(genericiooptions.NewTestIOStreamsDiscard(), func(string) string { return "" })
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
		t.Fatalf("found %d concrete examples of safe-retire in docs/ (of %d), want at least 3: is the extraction broken?", concrete, len(exs))
	}
}
