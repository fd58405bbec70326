package whyterminating_test

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// The MCP server's entry (Compute, which calls Plan) and the command give the same Result for
// the same Request: the object, the type and the sweep the command is given, on the same
// cluster. Only what differs between two reads of one cluster (the report's time, ages and the
// count of LIST requests) is left out of the comparison.
func TestEntryMatchesCommand(t *testing.T) {
	needEnv(t)
	for _, tc := range []struct {
		name string
		args []string
		req  whyterminating.Request
	}{
		{"object", []string{"pvc", "headlamp", "-n", "headlamp"},
			whyterminating.Request{Arg: kinds.ObjectArg{Type: "pvc", Name: "headlamp"}}},
		{"inventory id", []string{"headlamp_headlamp__PersistentVolumeClaim"},
			whyterminating.Request{Arg: kinds.ObjectArg{Group: "", Kind: "PersistentVolumeClaim", Namespace: "headlamp", Name: "headlamp", FromInventory: true}}},
		{"namespace sweep", []string{"-n", "headlamp"},
			whyterminating.Request{Sweep: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, append(tc.args, "-o", "json")...)
			var cmdRes whyterminating.Result
			if err := json.Unmarshal([]byte(out), &cmdRes); err != nil {
				t.Fatalf("exit %d, json: %v\n%s\n%s", code, err, out, errOut)
			}
			arg, err := kinds.ParseObjectArgs(tc.args[:countArgs(tc.args)])
			if countArgs(tc.args) > 0 && (err != nil || arg != tc.req.Arg) {
				t.Fatalf("the command parses %v as %+v (%v), the test's request has %+v", tc.args, arg, err, tc.req.Arg)
			}
			flags := genericclioptions.NewConfigFlags(true)
			flags.KubeConfig, flags.Context = &env.Kubeconfig, &env.Context
			if ns := namespaceOf(tc.args); ns != "" {
				flags.Namespace = &ns
			}
			c, err := cluster.Connect(flags)
			if err != nil {
				t.Fatal(err)
			}
			req := tc.req
			req.Namespace = c.Namespace
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := whyterminating.Compute(ctx, c, req)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != code {
				t.Errorf("entry exit code %d, command %d", res.ExitCode, code)
			}
			if diff := cmp.Diff(stable(t, &cmdRes), stable(t, res)); diff != "" {
				t.Errorf("the entry's Result differs from the command's (-command +entry):\n%s", diff)
			}
		})
	}
}

// countArgs is how many of args come before the first flag.
func countArgs(args []string) int {
	for i, a := range args {
		if a[0] == '-' {
			return i
		}
	}
	return len(args)
}

// namespaceOf is the value of -n in args, "" without one.
func namespaceOf(args []string) string {
	for i, a := range args {
		if a == "-n" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// varying are the fields of a Result that differ between two reads of one cluster, and age
// is an object's age in a blocker's details.
var (
	varying = regexp.MustCompile(`"(timestamp|terminatingFor|listRequests)":("[^"]*"|\d+)`)
	age     = regexp.MustCompile(`\bage \d+[smhd]\b`)
)

// stable is r as JSON without the fields that vary between reads.
func stable(t *testing.T, r *whyterminating.Result) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return age.ReplaceAllString(varying.ReplaceAllString(string(b), `"$1":"-"`), "age AGE")
}
