package helmjudge

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/charts"
)

// part is one thing rendering a HelmRelease reads on a side, named as a reader is told of it:
// a field of its spec, its chart, its chart source or a valuesFrom object.
type part struct {
	What  string `json:"what"`
	Value any    `json:"value"`
}

// parts are what rendering hr reads on this side: each field of its spec, the chart it
// resolves to (with a chart directory's digest), its chart source's spec and, of each valuesFrom
// object of its namespace, the entry it reads (valuesRead).
func (s *side) parts(hr *unstructured.Unstructured) []part {
	var out []part
	spec, _ := hr.Object["spec"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(spec)) {
		out = append(out, part{"spec." + k, spec[k]})
	}
	if ref, err := charts.RefFor(hr, s.srcs, s.own); err == nil {
		out = append(out, part{"chart", ref})
		if ref.Type == charts.TypeDir {
			out = append(out, part{"chart", charts.ChartDirDigestIn(s.files, ref, s.dirDigest)})
		}
		if src, ok := s.srcs[ref.Source]; ok {
			out = append(out, part{"chart source " + ref.Source, src.Object["spec"]})
		}
	}
	from, _, _ := unstructured.NestedSlice(hr.Object, "spec", "valuesFrom")
	for _, f := range from {
		m, _ := f.(map[string]any)
		kind, _ := m["kind"].(string)
		name, _ := m["name"].(string)
		for _, o := range s.objs {
			if o.GetKind() == kind && o.GetName() == name && o.GetNamespace() == hr.GetNamespace() {
				out = append(out, part{"valuesFrom " + kind + " " + o.GetNamespace() + "/" + name, valuesRead(o, m)})
			}
		}
	}
	return out
}

// changedParts are the names of the parts that differ between base and candidate (one side
// only counts), each once, in the order they are read.
func changedParts(base, cand []part) []string {
	digest := func(ps []part) map[string]string {
		out := map[string]string{}
		for _, p := range ps {
			data, err := json.Marshal(p.Value)
			if err != nil {
				data = []byte("unreadable: " + err.Error())
			}
			out[p.What] += string(data)
		}
		return out
	}
	b, c := digest(base), digest(cand)
	var out []string
	for _, p := range append(slices.Clone(base), cand...) {
		if !slices.Contains(out, p.What) && b[p.What] != c[p.What] {
			out = append(out, p.What)
		}
	}
	return out
}

// changedText says what the candidate changes of what a render reads: "the candidate changes
// its spec.install and spec.upgrade". The chart and values are named as such; only the
// fields of the spec that changed are, so a change to how helm-controller installs or
// upgrades is not told as a change of what it renders from.
func changedText(what []string) string {
	if len(what) == 0 {
		return "the candidate changes what it renders from"
	}
	if len(what) > 4 {
		what = append(what[:4:4], fmt.Sprintf("%d more", len(what)-4))
	}
	last := what[len(what)-1]
	if len(what) == 1 {
		return "the candidate changes its " + last
	}
	return "the candidate changes its " + strings.Join(what[:len(what)-1], ", ") + " and " + last
}

// changedOf is changedText for the release of inventory id, as renderHelm found it.
func (s *helmSides) changedOf(id string) string {
	if why := s.changed[id]; why != "" {
		return why
	}
	return changedText(nil)
}

// sidesErr is the failure of a release's renders, with the side that failed ("at base: …"),
// told once when both sides failed alike (a chart that cannot be had is the same at both).
func sidesErr(base, cand error) error {
	switch {
	case base == nil && cand == nil:
		return nil
	case base == nil:
		return fmt.Errorf("at the candidate: %w", cand)
	case cand == nil:
		return fmt.Errorf("at base: %w", base)
	case base.Error() == cand.Error():
		return fmt.Errorf("at base and candidate: %w", base)
	}
	return fmt.Errorf("at base: %w; at the candidate: %w", base, cand)
}
