// Package version reports which build of the suite is running. A release stamps the version,
// commit and date into this package with -ldflags -X (see .goreleaser.yaml); `go install
// MODULE@vX` builds fall back to the module version Go records, and anything else is "dev".
// It holds no command logic: AddFlag gives a plugin's command --version.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Set at link time by the release build, e.g.
//
//	-X github.com/kubeforensics/suite/internal/version.version=v0.1.0
//
// They stay unexported so nothing else can change them at run time.
var (
	version = ""
	commit  = ""
	date    = ""
)

// Info describes one build.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Date      string `json:"date,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Get returns the build information of the running binary.
func Get() Info {
	return resolve(version, commit, date, debug.ReadBuildInfo)
}

// resolve fills Info from the link-time values, falling back to the module build info.
func resolve(v, c, d string, read func() (*debug.BuildInfo, bool)) Info {
	// goreleaser stamps "none" and the zero time when it cannot read git; say nothing instead.
	if c == "none" {
		c = ""
	}
	if strings.HasPrefix(d, "0001-01-01") {
		d = ""
	}
	info := Info{Version: v, Commit: c, Date: d, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info.Version != "" {
		return info
	}
	info.Version = "dev"
	bi, ok := read()
	if !ok {
		return info
	}
	// "(devel)" is what a build inside the work tree records; it says nothing more than "dev".
	if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
		info.Version = mv
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && info.Commit == "":
			info.Commit = s.Value
		case s.Key == "vcs.time" && info.Date == "":
			info.Date = s.Value
		}
	}
	return info
}

// String is the one-line form cobra prints after "<name> version ", e.g.
// `v0.1.0 (commit 3f2a1b0, built 2026-11-30T01:36:41Z, go1.26.8 linux/amd64)`.
func (i Info) String() string {
	s := i.Version + " ("
	if i.Commit != "" {
		c := i.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		s += "commit " + c + ", "
	}
	if i.Date != "" {
		s += "built " + i.Date + ", "
	}
	return s + fmt.Sprintf("%s %s)", i.GoVersion, i.Platform)
}

// String returns Get().String(), the value plugins give cobra.Command.Version.
func String() string { return Get().String() }

// AddFlag makes cmd answer --version with String(). It registers the flag itself so cobra
// does not add its -v shorthand: kubectl users know -v as log verbosity.
func AddFlag(cmd *cobra.Command) {
	cmd.Version = String()
	cmd.Flags().Bool("version", false, "Print the plugin's version and exit.")
}
