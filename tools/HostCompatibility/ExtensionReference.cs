namespace HostCompatibility;

/// <summary>One entry of <c>bin/extensions.json</c>: a startup type the host loads before the app's functions.</summary>
/// <param name="Name">The entry's display name (may be null; the host then shows the type name).</param>
/// <param name="TypeName">The assembly-qualified type name.</param>
/// <param name="HintPath">Where the assembly is, relative to bin/ (or absolute); null means <c>&lt;AssemblyName&gt;.dll</c> in bin/.</param>
public sealed record ExtensionReference(string? Name, string TypeName, string? HintPath)
{
    /// <summary>The type's full name, without the assembly part.</summary>
    public string TypeFullName => TypeName.Split(',', 2)[0].Trim();

    /// <summary>The type's short name (<c>Type.Name</c>), which the host's minimum table is keyed by.</summary>
    public string TypeShortName => TypeFullName[(TypeFullName.LastIndexOfAny(['.', '+']) + 1)..];

    /// <summary>The simple name of the assembly the type is in.</summary>
    public string AssemblySimpleName =>
        TypeName.Split(',', 3) is { Length: >= 2 } parts ? parts[1].Trim() : throw new FormatException($"extensions.json: '{TypeName}' is not assembly-qualified.");

    /// <summary>
    /// The assembly file the host loads the type from: the hint path, else <c>&lt;AssemblyName&gt;.dll</c>, relative to
    /// the folder holding extensions.json (ScriptStartupTypeLocator.GetExtensionsStartupTypesAsync, host commit in host-facts.json).
    /// </summary>
    public string AssemblyPath(string binDirectory)
    {
        var path = string.IsNullOrEmpty(HintPath) ? AssemblySimpleName + ".dll" : HintPath;
        return Path.IsPathRooted(path) ? path : Path.GetFullPath(Path.Combine(binDirectory, path));
    }
}
