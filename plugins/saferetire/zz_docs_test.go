package saferetire_test

import (
	"os"
	"testing"

	"github.com/kubeforensics/suite/internal/incident"
)

func TestZZDocsOutput(t *testing.T) {
	needEnv(t)
	r := incidentRepo(t)
	r.commit("second", nil, nil)
	r.removeClaim()
	out, errOut, code := run(t, "--dry-run", "--repo", r.dir, "-n", incident.FluxNS)
	os.WriteFile("/tmp/docs-live.txt", []byte(errOut+out), 0o644)
	_ = code
}
