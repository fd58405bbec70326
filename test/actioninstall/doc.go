// Package actioninstall tests the GitHub Action's install step (action/install.sh) on
// stand-in release archives served locally: what it installs from each archive, and where.
// test/e2e runs the whole Action on a real snapshot release.
package actioninstall
