// Package schemas is the one generator of the published report schemas: the report kinds
// under the contract (docs/report.md), and each one's JSON Schema, inferred from the plugin's
// Result type by report.Schema with the kind and apiVersion pinned and the timestamp a
// date-time. hack/release/schemagen writes them to docs/schema; the MCP server declares the
// same schemas as its tools' output schemas, so the two never differ.
package schemas

import (
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kubeforensics/suite/internal/chain"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/saferetire"
	"github.com/kubeforensics/suite/internal/terminating"
)

// Kind is one report kind and the Go type that marshals to it.
type Kind struct {
	Name       string
	APIVersion string
	Type       reflect.Type
	// Title is the schema's one-line description.
	Title string
}

// Kinds lists every report kind under the contract (docs/report.md).
func Kinds() []Kind {
	return []Kind{
		{"WhyTerminatingResult", terminating.APIVersion, reflect.TypeFor[terminating.Result](),
			"kubectl why-terminating -o json: what holds each Terminating object and how to release it"},
		{"FluxChainResult", chain.APIVersion, reflect.TypeFor[chain.Result](),
			"kubectl flux-chain -o json: the live Kustomization chain, its root causes and what waits on them"},
		{"FluxChainRepoResult", chain.RepoAPIVersion, reflect.TypeFor[chain.RepoResult](),
			"kubectl flux-chain --repo -o json: the chain a repository declares and its lint findings"},
		{"SafeRetireResult", saferetire.APIVersion, reflect.TypeFor[saferetire.Result](),
			"kubectl safe-retire -o json: what a change would prune, whether it is safe, and the staged plan"},
		{"ChartsPullResult", saferetire.ChartsAPIVersion, reflect.TypeFor[saferetire.ChartsPullResult](),
			"kubectl safe-retire charts pull -o json: the charts a repository declares, what pulling each came to, and the CI cache key"},
	}
}

// Of is the published schema of the kind whose Go type is t.
func Of(t reflect.Type) (*jsonschema.Schema, error) {
	for _, k := range Kinds() {
		if k.Type == t {
			return k.Schema()
		}
	}
	return nil, fmt.Errorf("%s is not a published report kind", t)
}

// Schema is the kind's schema, draft 2020-12, with apiVersion and kind pinned to their values
// and the timestamp a date-time.
func (k Kind) Schema() (*jsonschema.Schema, error) {
	s, err := report.Schema(k.Type)
	if err != nil {
		return nil, err
	}
	s.Schema = "https://json-schema.org/draft/2020-12/schema"
	s.Title = k.Name
	s.Description = k.Title + ". Generated from the Go types by hack/release/schemagen; see docs/report.md."
	for prop, v := range map[string]string{"apiVersion": k.APIVersion, "kind": k.Name} {
		p := s.Properties[prop]
		if p == nil {
			return nil, fmt.Errorf("%s: the type has no %s field", k.Name, prop)
		}
		var c any = v
		p.Const = &c
	}
	if ts := s.Properties["timestamp"]; ts != nil {
		ts.Format = "date-time"
	}
	return s, nil
}
