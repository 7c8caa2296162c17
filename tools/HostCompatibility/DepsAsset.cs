namespace HostCompatibility;

/// <summary>One runtime assembly of <c>bin/function.deps.json</c>.</summary>
/// <param name="Library">The library it belongs to, <c>Package/Version</c>.</param>
/// <param name="Name">The assembly's simple name (its file name without <c>.dll</c>).</param>
/// <param name="Path">Where it is, relative to bin/: the file name for RID-agnostic assets (deployments flatten them), the full relative path for RID-specific ones.</param>
/// <param name="AssemblyVersion">The assembly version the file records, or null where it records none.</param>
/// <param name="Rid">The runtime identifier of a RID-specific asset, or null.</param>
public sealed record DepsAsset(string Library, string Name, string Path, Version? AssemblyVersion, string? Rid);
