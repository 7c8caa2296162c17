namespace HostCompatibility;

/// <summary>
/// An assembly the host unifies (a non-<c>private</c> entry of <c>src/WebJobs.Script/runtimeassemblies-net8.json</c>):
/// the function app gets the host's copy, under <see cref="ResolutionPolicy"/>.
/// </summary>
/// <param name="Name">The assembly's simple name.</param>
/// <param name="ResolutionPolicy"><c>minorMatchOrLower</c> (same major, minor at most the host's) or <c>runtimeVersion</c> (always the host's).</param>
/// <param name="HostVersion">The version the .NET 8 in-process host loads, or null where it was not established.</param>
/// <param name="Source">Where <paramref name="HostVersion"/> was read (host-facts.json's <c>_source</c> names the files and commits).</param>
public sealed record UnifiedAssembly(string Name, string ResolutionPolicy, string? HostVersion, string? Source = null);
