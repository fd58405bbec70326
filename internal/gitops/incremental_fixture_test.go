package gitops

import "github.com/kubeforensics/suite/internal/testsupport/gitopsfixture"

// The home-ops shaped repositories and their parts, shared with kbuild's tests
// (gitopsfixture.HomeOps, gitopsfixture.Pair).
func homeOps() map[string]string     { return gitopsfixture.HomeOps() }
func pairFixture() map[string]string { return gitopsfixture.Pair() }
func appKS(name, ns, dir string, components []string, substitute string) string {
	return gitopsfixture.AppKS(name, ns, dir, components, substitute)
}
func settings(cluster, storage string) string { return gitopsfixture.Settings(cluster, storage) }
func helmRelease(name, tag string) string     { return gitopsfixture.HelmRelease(name, tag) }
func deployment(name, image string) string    { return gitopsfixture.Deployment(name, image) }
