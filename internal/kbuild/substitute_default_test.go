package kbuild

import (
	"context"
	"reflect"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// Substitution defaults are values (issue 30, item 3): the volsync component of home-ops
// repositories names its claim `${VOLSYNC_CLAIM:=${APP}}` (bjw-s-labs/home-ops
// kubernetes/components/volsync/pvc.yaml, `:-` there; onedr0p/home-ops kopiur `:=`), and the
// root Kustomization reads the cluster's Secret with substituteFrom, which is never read.
// Flux's envsubst takes the default when no source defines the variable, so the claim is
// named by APP from the inline substitute map; a variable a read Secret defines, or one
// referenced without a default, stays unresolved. Before, every variable with no value was
// kept as ${NAME} once a source was unknown, and the claim's name was "unresolved".
func TestSubstituteDefaults(t *testing.T) {
	r := gittest.New(t, map[string]string{
		"app/kustomization.yaml": "resources:\n- pvc.yaml\n- cm.yaml\n",
		"app/pvc.yaml":           "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: \"${VOLSYNC_CLAIM:=${APP}}\"\n  namespace: media\nspec:\n  accessModes: [\"${VOLSYNC_ACCESSMODES:-ReadWriteOnce}\"]\n",
		"app/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"${APP}-${SUFFIX:=${DOMAIN}}\"\n  namespace: media\n",
	})
	secret := "    substituteFrom:\n    - kind: Secret\n      name: cluster-secrets\n"
	cases := []struct {
		name       string
		substitute string
		opts       Options
		want       []string
		unresolved []string
		defaulted  []string
	}{
		{"default settled by the inline map", "      APP: zigbee\n", Options{},
			[]string{"media_zigbee-${DOMAIN}__ConfigMap", "media_zigbee__PersistentVolumeClaim"}, []string{"DOMAIN"}, []string{"SUFFIX", "VOLSYNC_CLAIM"}},
		{"a variable the read Secret defines is not defaulted", "      APP: zigbee\n", Options{SecretKeys: map[string][]string{"flux-system/cluster-secrets": {"VOLSYNC_CLAIM", "DOMAIN"}}},
			[]string{"media_${VOLSYNC_CLAIM}__PersistentVolumeClaim", "media_zigbee-${DOMAIN}__ConfigMap"}, []string{"DOMAIN", "VOLSYNC_CLAIM"}, nil},
		{"the inline map wins over the default", "      APP: zigbee\n      VOLSYNC_CLAIM: zigbee-data\n      SUFFIX: x\n", Options{},
			[]string{"media_zigbee-data__PersistentVolumeClaim", "media_zigbee-x__ConfigMap"}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ks := fluxKS(t, ksYAML("app", "  postBuild:\n    substitute:\n"+tc.substitute+secret))
			res := Build(context.Background(), r.Dir, ks, tc.opts)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if got := ids(res.Objects); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("objects = %v, want %v", got, tc.want)
			}
			if !reflect.DeepEqual(res.Unresolved, tc.unresolved) {
				t.Errorf("Unresolved = %v, want %v", res.Unresolved, tc.unresolved)
			}
			// A default taken while the unread Secret could define the variable is said.
			if !reflect.DeepEqual(res.Defaulted, tc.defaulted) {
				t.Errorf("Defaulted = %v, want %v", res.Defaulted, tc.defaulted)
			}
		})
	}
}
