package fluxcatalog

import (
	"fmt"
	"strings"

	"github.com/fluxcd/flux2/v2/pkg/plugin"
)

// ArchiveName is the archive of bin for one platform as the catalog's update workflow names
// it: <bin>_<version>_<os>_<arch>.tar.gz, .zip on windows.
func ArchiveName(bin, version, os, arch string) string {
	ext := ".tar.gz"
	if os == "windows" {
		ext = ".zip"
	}
	return bin + "_" + version + "_" + os + "_" + arch + ext
}

// ChecksumsName is the checksums file the update workflow downloads for bin.
func ChecksumsName(bin, version string) string { return bin + "_" + version + "_checksums.txt" }

// updatePlatforms are the platforms the update workflow looks for, in its order.
var updatePlatforms = [][2]string{
	{"darwin", "amd64"}, {"darwin", "arm64"}, {"linux", "amd64"}, {"linux", "arm64"}, {"windows", "amd64"}, {"windows", "arm64"},
}

// UpdateWorkflow is the manifest version the catalog's update workflow
// (.github/workflows/update-plugin.yaml) writes for one release, derived from nothing but the
// plugin's bin, the version and the release's base URL: it downloads
// ChecksumsName(bin, version), looks for ArchiveName(bin, version, os, arch) at the end of a
// line for each platform it knows, and records os, arch, url and "sha256:<first field>" for
// those listed, with no extractPath. readFile stands for the download from baseURL.
func UpdateWorkflow(bin, version, baseURL string, readFile func(name string) ([]byte, error)) (plugin.Version, error) {
	raw, err := readFile(ChecksumsName(bin, version))
	if err != nil {
		return plugin.Version{}, err
	}
	v := plugin.Version{Version: version}
	for _, pl := range updatePlatforms {
		file := ArchiveName(bin, version, pl[0], pl[1])
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.HasSuffix(line, "  "+file) {
				v.Platforms = append(v.Platforms, plugin.Platform{
					OS: pl[0], Arch: pl[1], URL: strings.TrimSuffix(baseURL, "/") + "/" + file,
					Checksum: "sha256:" + strings.Fields(line)[0],
				})
				break
			}
		}
	}
	if len(v.Platforms) == 0 {
		return v, fmt.Errorf("no platform checksums found for %s %s", bin, version)
	}
	return v, nil
}
