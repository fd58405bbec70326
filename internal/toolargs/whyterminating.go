// Package toolargs is the arguments of the MCP server's tools: each tool's input, whose
// fields and jsonschema tags are the tool's input schema, Checker, which checks a call's
// arguments against that schema, and ToRequest, which turns a call's input into the plugin's
// Request, as a command turns its flags into one (kubectl's WaitFlags.ToOptions): every check
// of a value is the plugin's own, made once, and only contexts and repositories on the server's
// allow-lists are opened.
package toolargs

import (
	"strings"

	"github.com/kubeforensics/suite/internal/allowlist"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/terminating"
)

// WhyTerminating are the arguments of why_terminating, as `kubectl why-terminating` takes them.
type WhyTerminating struct {
	Object        string `json:"object,omitempty" jsonschema:"What to explain, as kubectl names it: 'TYPE NAME' (pvc headlamp), 'TYPE/NAME' (persistentvolumeclaims/headlamp), a Flux inventory id (headlamp_headlamp__PersistentVolumeClaim), or a TYPE alone for every Terminating object of that type. Empty: every Terminating object in the namespace (and the namespace itself), or in the cluster with allNamespaces."`
	Namespace     string `json:"namespace,omitempty" jsonschema:"The namespace (default: the context's)."`
	AllNamespaces bool   `json:"allNamespaces,omitempty" jsonschema:"Every namespace, and cluster-scoped objects (kubectl -A)."`
	Context       string `json:"context,omitempty" jsonschema:"The kubeconfig context to read; empty for the server's default. Only contexts on the server's allow-list are accepted."`
}

// ToRequest is the Request of the call: its object as the command's words (at most two, as
// the command takes), read on its context, which allowed must allow, in its namespace; the
// words and their combination with the namespace are checked by terminating.NewRequest, as the
// command's are.
func (in WhyTerminating) ToRequest(allowed *allowlist.Contexts) (terminating.Request, error) {
	words := strings.Fields(in.Object)
	if len(words) > 2 {
		return terminating.Request{}, exitcode.UsageErrorf("object %q: give TYPE, TYPE NAME, TYPE/NAME or an inventory id", in.Object)
	}
	c, err := allowed.Connect(in.Context, in.Namespace)
	if err != nil {
		return terminating.Request{}, err
	}
	return terminating.NewRequest(words, in.AllNamespaces, c, nil)
}
