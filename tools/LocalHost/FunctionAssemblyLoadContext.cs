using System.Collections.Concurrent;
using System.Reflection;
using System.Runtime.Loader;
using HostCompatibility;

namespace LocalHost;

/// <summary>
/// The in-process Functions host's load context for an app's assemblies, rule for rule: azure-functions-host
/// <c>src/WebJobs.Script/Description/DotNet/FunctionAssemblyLoadContext.cs</c> on the in-proc branch at commit
/// 95e0b27a6b1c405e32a560999a52e16a3573f255 (the one host-facts.json cites). This host's own assemblies (its default
/// context) stand for the host's: WebJobs, the HTTP extension, Newtonsoft.Json, System.Memory.Data and the framework.
/// <list type="number">
/// <item>A request for a unified assembly is raised (or lowered) to the version <c>bin/function.deps.json</c> records.</item>
/// <item>Any other assembly the deps file records is loaded from bin/.</item>
/// <item>A unified assembly is the host's copy if its policy accepts it (<c>minorMatchOrLower</c>: same major, minor at
/// most the host's; <c>runtimeVersion</c>: always); if not, and the deps file raised the request above the host's
/// copy, it is loaded from bin/; otherwise the default context decides. A <c>private</c> one is the app's, from bin/.</item>
/// <item>Anything else is the host's if the host has that exact version, else the app's from bin/.</item>
/// <item>What the default context cannot bind (e.g. a request above the host's copy) falls back to bin/
/// (<c>HandleDefaultContextFallback</c>): how <c>&lt;FunctionsPreservedDependencies&gt;</c> copies are found.</item>
/// </list>
/// </summary>
internal sealed class FunctionAssemblyLoadContext : AssemblyLoadContext
{
    private const string PrivatePolicy = "private";

    private readonly List<string> _probingPaths = [];
    private readonly FunctionDepsFile _deps;
    private readonly Dictionary<string, string> _policies = new(StringComparer.OrdinalIgnoreCase);
    private readonly ConcurrentDictionary<string, int> _inHostLoad = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>A context for the app whose assemblies are in <paramref name="binDirectory"/>, under <paramref name="facts"/>' runtime assembly list.</summary>
    public FunctionAssemblyLoadContext(string binDirectory, HostFacts facts)
        : base("FunctionAssemblyLoadContext")
    {
        _probingPaths.Add(binDirectory);
        _deps = FunctionDepsFile.Read(binDirectory);
        foreach (var assembly in facts.UnifiedAssemblies)
        {
            _policies[assembly.Name] = assembly.ResolutionPolicy;
        }

        foreach (var name in facts.PrivateAssemblies)
        {
            _policies[name] = PrivatePolicy;
        }

        Default.Resolving += HandleDefaultContextFallback;
    }

    /// <summary>Loads <paramref name="assemblyPath"/> into this context, probing its folder for its dependencies too if asked (as the host does for extensions).</summary>
    public Assembly LoadFromAssemblyPath(string assemblyPath, bool addProbingPath)
    {
        var directory = Path.GetDirectoryName(assemblyPath);
        if (addProbingPath && directory is not null && Directory.Exists(directory) && !_probingPaths.Contains(directory))
        {
            _probingPaths.Add(directory);
        }

        return LoadFromAssemblyPath(assemblyPath);
    }

    /// <inheritdoc/>
    protected override Assembly? Load(AssemblyName assemblyName)
    {
        var isNameAdjusted = TryAdjustRuntimeAssemblyFromDepsFile(assemblyName, out assemblyName);
        if (TryLoadDepsDependency(assemblyName, out var assembly))
        {
            return assembly;
        }

        if (_policies.TryGetValue(assemblyName.Name!, out var policy))
        {
            if (TryLoadRuntimeAssembly(assemblyName, policy, out assembly))
            {
                return assembly;
            }

            if (assembly is null || !isNameAdjusted)
            {
                return null;
            }

            // Raised by the deps file above the host's copy: the default context would hand out the host's (older) one.
            return assemblyName.Version > assembly.GetName().Version ? LoadCore(assemblyName) : null;
        }

        return TryLoadHostEnvironmentAssembly(assemblyName, out assembly) ? assembly : LoadCore(assemblyName);
    }

    private bool IsRuntimeAssembly(AssemblyName name) =>
        _policies.TryGetValue(name.Name!, out var policy) && !string.Equals(policy, PrivatePolicy, StringComparison.OrdinalIgnoreCase);

    private bool TryAdjustRuntimeAssemblyFromDepsFile(AssemblyName name, out AssemblyName adjusted)
    {
        adjusted = name;
        if (IsRuntimeAssembly(name) && _deps.TryGetAsset(name.Name!, out var asset) && asset.AssemblyVersion != name.Version)
        {
            adjusted = new AssemblyName { Name = name.Name, Version = asset.AssemblyVersion };
            return true;
        }

        return false;
    }

    private bool TryLoadDepsDependency(AssemblyName name, out Assembly? assembly)
    {
        assembly = null;
        if (!IsRuntimeAssembly(name) && _deps.TryGetAsset(name.Name!, out var asset))
        {
            var path = _probingPaths.Select(p => Path.Combine(p, asset.Path)).FirstOrDefault(File.Exists);
            assembly = path is null ? null : LoadFromAssemblyPath(path);
        }

        return assembly is not null;
    }

    private bool TryLoadRuntimeAssembly(AssemblyName name, string policy, out Assembly? runtimeAssembly)
    {
        if (string.Equals(policy, PrivatePolicy, StringComparison.OrdinalIgnoreCase))
        {
            runtimeAssembly = LoadCore(name);
            return true;
        }

        if (TryLoadHostEnvironmentAssembly(name, out runtimeAssembly) || TryLoadHostEnvironmentAssembly(new AssemblyName(name.Name!), out runtimeAssembly))
        {
            var hostVersion = runtimeAssembly!.GetName().Version!;
            return policy switch
            {
                "runtimeVersion" => true,
                "minorMatchOrLower" => name.Version is null || (name.Version.Major == hostVersion.Major && name.Version.Minor <= hostVersion.Minor),
                _ => throw new InvalidOperationException($"'{policy}' is not a valid assembly resolution policy"),
            };
        }

        return false;
    }

    private bool TryLoadHostEnvironmentAssembly(AssemblyName name, out Assembly? assembly)
    {
        assembly = null;
        _inHostLoad.AddOrUpdate(name.Name!, 1, (_, count) => count + 1);
        try
        {
            assembly = Default.LoadFromAssemblyName(name);
        }
        catch (FileNotFoundException)
        {
            // Not the host's (or not at that version): the caller decides.
        }
        finally
        {
            _inHostLoad.AddOrUpdate(name.Name!, 0, (_, count) => count - 1);
        }

        return assembly is not null;
    }

    private Assembly? LoadCore(AssemblyName name)
    {
        var path = _probingPaths.Select(p => Path.Combine(p, name.Name + ".dll")).FirstOrDefault(File.Exists);
        return path is null ? null : LoadFromAssemblyPath(path);
    }

    private Assembly? HandleDefaultContextFallback(AssemblyLoadContext context, AssemblyName name)
    {
        // Not while this context is asking the default one on its own behalf: that would answer its own question.
        if (_inHostLoad.TryGetValue(name.Name!, out var count) && count > 0)
        {
            return null;
        }

        return TryLoadDepsDependency(name, out var assembly) ? assembly : LoadCore(name);
    }
}
