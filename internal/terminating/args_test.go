package terminating

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/kinds"
)

// NewRequest is the one check of why-terminating's input, for the command line and the MCP
// tool alike: the words become the object (none: a sweep), and what cannot be honoured is bad
// input, refused before anything is read.
func TestNewRequest(t *testing.T) {
	given := &cluster.Clients{Namespace: "apps", NamespaceExplicit: true}
	context := &cluster.Clients{Namespace: "default"}
	for _, tc := range []struct {
		name    string
		args    []string
		all     bool
		c       *cluster.Clients
		want    Request
		refused string
	}{
		{"no words: a sweep of the namespace", nil, false, given, Request{Sweep: true, Namespace: "apps"}, ""},
		{"no words with -A: a sweep of the cluster", nil, true, context, Request{Sweep: true, AllNamespaces: true, Namespace: "default"}, ""},
		{"TYPE NAME", []string{"pvc", "data"}, false, given, Request{Arg: kinds.ObjectArg{Type: "pvc", Name: "data"}, Namespace: "apps"}, ""},
		{"a TYPE alone with -A", []string{"pvc"}, true, given, Request{Arg: kinds.ObjectArg{Type: "pvc"}, AllNamespaces: true, Namespace: "apps"}, ""},
		{"a name with -A", []string{"pvc/data"}, true, given, Request{}, "give no object name"},
		{"an inventory id in the namespace given", []string{"apps_data__PersistentVolumeClaim"}, false, given,
			Request{Arg: kinds.ObjectArg{Kind: "PersistentVolumeClaim", Namespace: "apps", Name: "data", FromInventory: true}, Namespace: "apps"}, ""},
		{"an inventory id in another namespace than the one given", []string{"db_data__PersistentVolumeClaim"}, false, given, Request{}, `names namespace "db" but -n is "apps"`},
		{"an inventory id beside the context's namespace", []string{"db_data__PersistentVolumeClaim"}, false, context,
			Request{Arg: kinds.ObjectArg{Kind: "PersistentVolumeClaim", Namespace: "db", Name: "data", FromInventory: true}, Namespace: "default"}, ""},
		{"words that name no object", []string{"pvc/a", "b"}, false, given, Request{}, "give either TYPE NAME or TYPE/NAME"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewRequest(tc.args, tc.all, tc.c, nil)
			if tc.refused != "" {
				if err == nil || exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("NewRequest(%q, %v) = %+v, %v; want bad input containing %q", tc.args, tc.all, got, err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Clients != tc.c {
				t.Errorf("clients %p, want %p", got.Clients, tc.c)
			}
			got.Clients = nil
			if got.Arg != tc.want.Arg || got.Sweep != tc.want.Sweep || got.AllNamespaces != tc.want.AllNamespaces || got.Namespace != tc.want.Namespace {
				t.Errorf("NewRequest(%q, %v) = %+v, want %+v", tc.args, tc.all, got, tc.want)
			}
		})
	}
}
