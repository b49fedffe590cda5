package mockhost

// registryFaults are the faults of installing from a registry (registry.go):
// tenants, channels, withdrawn releases, metadata before the download,
// archives.
func registryFaults() []Fault {
	return []Fault{
		{Name: "registry-ignores-tenant", Breaks: []string{"REGISTRY-TENANT-ENABLED"},
			Description: "the bootstrap is asked for the registry's default tenant, not the configured one"},
		{Name: "bootstrap-cached-across-tenants", Breaks: []string{"REGISTRY-TENANT-ENABLED"},
			Description: "the first bootstrap of a registry is kept, whatever tenant is configured later"},
		{Name: "install-not-enabled", Breaks: []string{"REGISTRY-TENANT-ENABLED"},
			Description: "a release the tenant did not enable is installed from the registry's public catalogue"},
		{Name: "signed-withdrawn-installed", Breaks: []string{"REGISTRY-WITHDRAWN"},
			Description: "a withdrawn release is still installed when its Sigstore signature verifies"},
		{Name: "list-withdrawn", Breaks: []string{"REGISTRY-WITHDRAWN"},
			Description: "withdrawn releases are offered and installed like any other"},
		{Name: "registry-records-latest", Breaks: []string{"REGISTRY-PINNED-CHANNEL"},
			Description: "a channel resolves to the newest release in the registry's catalogue, not the one it pins"},
		{Name: "download-before-compatibility", Breaks: []string{"REGISTRY-METADATA-FIRST"},
			Description: "the package is downloaded before the release's compatibility is checked"},
		{Name: "download-pinned-to-itself", Breaks: []string{"REGISTRY-VERIFIED"},
			Description: "a package downloaded from the registry is pinned to the hashes it computes itself, never compared with its release's packageHash and manifestHash"},
		{Name: "list-needs-registry", Breaks: []string{"REGISTRY-OUTAGE"},
			Description: "app/list syncs with the registry first and fails when it cannot"},
		{Name: "archive-skips-bad-entries", Breaks: []string{"REGISTRY-ARCHIVE-CONTAINED"},
			Description: "an archive entry that would leave the package folder, or is not a plain file, is skipped and the rest of the archive installs"},
	}
}
