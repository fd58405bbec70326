package e2e

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
)

// seed creates what completion offers: the claim headlamp/headlamp and the seeded Flux chain.
func seed(ctx context.Context, env *testenv.Env) error {
	c, err := incident.NewClients(env.RESTConfig)
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "headlamp"}}
	if _, err := c.Kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace: %w", err)
	}
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "headlamp", Namespace: "headlamp"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if _, err := c.Kube.CoreV1().PersistentVolumeClaims("headlamp").Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create claim: %w", err)
	}
	if err := env.InstallFluxCRDs(ctx); err != nil {
		return err
	}
	return incident.SeedFluxChain(ctx, c)
}
