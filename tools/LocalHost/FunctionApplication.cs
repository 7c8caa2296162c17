using HostCompatibility;
using Microsoft.Azure.WebJobs.Hosting;

namespace LocalHost;

/// <summary>
/// A function app's build output, loaded as the in-process Functions host loads it: into a load context of its own
/// with the host's unification rules (<see cref="FunctionAssemblyLoadContext"/>), startup types from bin/extensions.json
/// (ScriptStartupTypeLocator in azure-functions-host, commit in tools/HostCompatibility/host-facts.json), functions from
/// each function.json's scriptFile and entryPoint.
/// </summary>
public sealed class FunctionApplication
{
    private FunctionApplication(string root, IReadOnlyList<Type> startupTypes, IReadOnlyList<FunctionDefinition> functions, IReadOnlyList<Type> functionTypes)
    {
        Root = root;
        StartupTypes = startupTypes;
        Functions = functions;
        FunctionTypes = functionTypes;
    }

    /// <summary>The app root (host.json, function folders, bin/).</summary>
    public string Root { get; }

    /// <summary>The startups extensions.json lists that implement <see cref="IWebJobsStartup"/>, in file order.</summary>
    public IReadOnlyList<Type> StartupTypes { get; }

    /// <summary>The functions (function.json files).</summary>
    public IReadOnlyList<FunctionDefinition> Functions { get; }

    /// <summary>The classes the functions' entry points are in.</summary>
    public IReadOnlyList<Type> FunctionTypes { get; }

    /// <summary>
    /// Loads the app at <paramref name="root"/> under <paramref name="facts"/>' runtime assembly list; <paramref name="log"/>
    /// hears which startups were loaded or skipped.
    /// </summary>
    public static FunctionApplication Load(string root, HostFacts facts, Action<string> log)
    {
        ArgumentNullException.ThrowIfNull(log);
        var bin = Path.Combine(root, "bin");
        var context = new FunctionAssemblyLoadContext(bin, facts);

        var startups = new List<Type>();
        foreach (var extension in ExtensionsManifest.Read(bin))
        {
            // As ScriptStartupTypeLocator: the type's assembly from its hint path (else bin/<name>.dll), into the app's context.
            var path = extension.AssemblyPath(bin);
            var type = Type.GetType(
                extension.TypeName,
                _ => File.Exists(path) ? context.LoadFromAssemblyPath(path, addProbingPath: true) : null,
                (assembly, typeName, ignoreCase) => assembly?.GetType(typeName, throwOnError: false, ignoreCase),
                throwOnError: false);
            if (type is null)
            {
                log($"Startup '{extension.Name ?? extension.TypeName}' could not be loaded from {path}; skipped, as the host skips it.");
            }
            else if (!typeof(IWebJobsStartup).IsAssignableFrom(type))
            {
                log($"Startup '{extension.TypeName}' is not an IWebJobsStartup; skipped, as the host skips it.");
            }
            else
            {
                log($"Loading startup extension '{extension.Name ?? type.Name}' ({type.Assembly.GetName().Name} {type.Assembly.GetName().Version}).");
                startups.Add(type);
            }
        }

        var functions = FunctionMetadataReader.ReadAll(root);
        var types = new List<Type>();
        foreach (var function in functions)
        {
            var script = Path.GetFullPath(Path.Combine(Path.GetDirectoryName(function.Path)!, function.ScriptFile ?? ""));
            var entryPoint = function.EntryPoint ?? throw new InvalidOperationException($"{function.Name}/function.json has no entryPoint.");
            var typeName = entryPoint[..entryPoint.LastIndexOf('.')];
            var type = context.LoadFromAssemblyPath(script, addProbingPath: false).GetType(typeName, throwOnError: true)!;
            if (!types.Contains(type))
            {
                types.Add(type);
            }
        }

        return new FunctionApplication(root, startups, functions, types);
    }
}
