package agentpkg

// Finding codes (stable; documented in docs/host-control-protocol.md).
const (
	CodeMissingFile                   = "missing-file"
	CodeNoFrontmatter                 = "no-frontmatter"
	CodeInvalidYAML                   = "invalid-yaml"
	CodeYAMLTooDeep                   = "yaml-too-deep"
	CodeYAMLTooLarge                  = "yaml-too-large"
	CodeYAMLAliasBomb                 = "yaml-alias-bomb"
	CodeNotUTF8                       = "not-utf8"
	CodeMissingField                  = "missing-field"
	CodeInvalidField                  = "invalid-field"
	CodeUnsupportedManifestVersion    = "unsupported-manifest-version"
	CodeLegacyEntryKind               = "legacy-entry-kind"
	CodePathEscapesPackage            = "path-escapes-package"
	CodeSymlinkEscapesPackage         = "symlink-escapes-package"
	CodeDanglingSymlink               = "dangling-symlink"
	CodeSymlinkCycle                  = "symlink-cycle"
	CodeSpecialFile                   = "special-file"
	CodeTooManyFiles                  = "too-many-files"
	CodeFileTooLarge                  = "file-too-large"
	CodePackageHashMismatch           = "package-hash-mismatch"
	CodeManifestHashMismatch          = "manifest-hash-mismatch"
	CodeSignatureManifestHashMismatch = "signature-manifest-hash-mismatch"
	CodeIncompatibleCapability        = "incompatible-capability"
	CodeIncompatibleHostVersion       = "incompatible-host-version"
	CodeBypassPermissions             = "bypass-permissions"
)

// Codes lists every finding code this package emits.
func Codes() []string {
	return []string{
		CodeMissingFile, CodeNoFrontmatter, CodeInvalidYAML, CodeYAMLTooDeep, CodeYAMLTooLarge,
		CodeYAMLAliasBomb, CodeNotUTF8, CodeMissingField, CodeInvalidField,
		CodeUnsupportedManifestVersion, CodeLegacyEntryKind, CodePathEscapesPackage,
		CodeSymlinkEscapesPackage, CodeDanglingSymlink, CodeSymlinkCycle, CodeSpecialFile,
		CodeTooManyFiles, CodeFileTooLarge, CodePackageHashMismatch, CodeManifestHashMismatch,
		CodeSignatureManifestHashMismatch, CodeIncompatibleCapability, CodeIncompatibleHostVersion,
		CodeBypassPermissions, CodeIncompatibleRuntime,
	}
}
