namespace HostCompatibility;

/// <summary>
/// One row of the host's minimum table (<c>src/WebJobs.Script/extensionrequirements.json</c>): a startup type, by its
/// short name, from <see cref="AssemblyName"/>, must come from an assembly version of at least
/// <see cref="MinimumAssemblyVersion"/>.
/// </summary>
/// <param name="Name">The startup type's short name (<c>Type.Name</c>), as the host matches it.</param>
/// <param name="AssemblyName">The assembly the rule applies to; the host skips the rule for a same-named type from another assembly.</param>
/// <param name="PackageName">The NuGet package to update, as the host's error names it.</param>
/// <param name="MinimumAssemblyVersion">The lowest accepted assembly version.</param>
/// <param name="MinimumPackageVersion">The package version that brings it.</param>
public sealed record ExtensionRequirement(
    string Name, string AssemblyName, string PackageName, string MinimumAssemblyVersion, string MinimumPackageVersion);
