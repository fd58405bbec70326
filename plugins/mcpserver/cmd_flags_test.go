package mcpserver_test

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/plugins/mcpserver"
)

// A directory may have a comma in its name: --repo-root takes each value whole, as
// --allow-origin does, instead of splitting it into two roots that do not exist.
func TestRepoRootKeepsCommas(t *testing.T) {
	cmd := mcpserver.NewCmdMCPServer(genericiooptions.NewTestIOStreamsDiscard())
	if err := cmd.ParseFlags([]string{"--repo-root", "/srv/repos/a,b", "--repo-root", "/srv/other"}); err != nil {
		t.Fatal(err)
	}
	got := cmd.Flags().Lookup("repo-root").Value.(pflag.SliceValue).GetSlice()
	if want := []string{"/srv/repos/a,b", "/srv/other"}; !slices.Equal(got, want) {
		t.Errorf("--repo-root = %q, want %q", got, want)
	}
}
