package finalizers

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// templateArgs returns the commands and arguments of a workload's containers, init containers
// included.
func templateArgs(obj runtime.Object) []string {
	var out []string
	for _, c := range templateContainers(obj) {
		out = append(append(out, c.Command...), c.Args...)
	}
	return out
}

// argWords splits a command-line argument into words as words does, also at `=` and `,`
// (`-kubernetes-addons-path=/opt/addons` → kubernetes is generic; addons, path, opt).
func argWords(arg string) []string {
	return words(strings.NewReplacer("=", "/", ",", "/").Replace(arg))
}

// argsNameKind is the tie, for a finalizer without a domain, of a workload whose own command or
// arguments name the object's custom kind as a word (its kind, singular or plural:
// `-kubernetes-addons-path=…` of Kubermatic's controller manager for an Addon): a controller's
// flags configure the kinds it manages, while a product's API server or a GitOps tool, given
// rights on every type, names none of them (kubermatic#4619). Only custom kinds are matched (a
// core kind such as pods is named by the flags of many unrelated workloads); low, as a name is.
func argsNameKind(w workload, kind string, own ownCRD) []tie {
	if kind == "" {
		return nil
	}
	names := map[string]bool{strings.ToLower(kind): true}
	for _, n := range own.names {
		names[n] = true
	}
	for _, a := range w.args {
		for _, word := range argWords(a) {
			if names[word] {
				return []tie{{conf: ConfidenceLow, evidence: fmt.Sprintf("its command or arguments name %q, the object's kind (%s)", word, a)}}
			}
		}
	}
	return nil
}
