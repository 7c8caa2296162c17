using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;

namespace HostCompatibility;

/// <summary>
/// The Azure Functions v4 host's start-up checks, applied to a function app's build output (the folder holding
/// host.json, one folder per function and bin/). Each check returns what the host would refuse, empty when it would
/// start. The facts come from <see cref="HostFacts"/> (azure-functions-host source, commit in host-facts.json).
/// </summary>
public static class HostCompatibilityChecker
{
    /// <summary>All checks.</summary>
    public static IReadOnlyList<CompatibilityProblem> Check(string appRoot, HostFacts facts) =>
    [
        .. CheckExtensionMinimums(appRoot, facts),
        .. CheckUnifiedAssemblies(appRoot, facts),
        .. CheckFunctionsSdk(appRoot, facts),
        .. CheckFunctionMetadata(appRoot),
    ];

    /// <summary>
    /// Every startup type in bin/extensions.json meets the host's minimum table, as
    /// <c>ScriptStartupTypeLocator.ValidateExtensionRequirements</c> decides it: matched by the type's short name, skipped
    /// when the assembly's simple name differs from the table's, compared by the loaded assembly's version.
    /// </summary>
    public static IReadOnlyList<CompatibilityProblem> CheckExtensionMinimums(string appRoot, HostFacts facts)
    {
        var bin = Path.Combine(appRoot, "bin");
        var problems = new List<CompatibilityProblem>();
        foreach (var extension in ExtensionsManifest.Read(bin))
        {
            var requirement = facts.ExtensionRequirements.FirstOrDefault(r => r.Name == extension.TypeShortName);
            var file = extension.AssemblyPath(bin);
            if (requirement is null || !File.Exists(file))
            {
                // No rule for this type, or the host could not load it (it logs and skips the entry).
                continue;
            }

            var assembly = AssemblyName.GetAssemblyName(file);
            if (assembly.Name != requirement.AssemblyName)
            {
                continue;
            }

            var minimum = new Version(requirement.MinimumAssemblyVersion);
            if (assembly.Version is null || assembly.Version < minimum)
            {
                // The host's own wording (HostInitializationException), so a failure reads as it would in Azure.
                problems.Add(new CompatibilityProblem(
                    "extension-minimum",
                    $"ExtensionStartupType {extension.TypeShortName} from assembly '{assembly.FullName}' does not meet the required minimum version of {minimum}. "
                    + $"Update your NuGet package reference for {requirement.PackageName} to {requirement.MinimumPackageVersion} or later."));
            }
        }

        return problems;
    }

    /// <summary>
    /// No assembly in bin/, no reference any of them makes, and no assembly version bin/function.deps.json records asks
    /// for a unified assembly above the version the host ships. The deps file counts because the host raises every
    /// request for a unified assembly to the version it records (<c>FunctionAssemblyLoadContext.TryAdjustRuntimeAssemblyFromDepsFile</c>).
    /// Under <c>minorMatchOrLower</c> such a request fails to load (the SDK left the host's assemblies out of bin/);
    /// under <c>runtimeVersion</c> the app silently gets the host's older copy. Compared by major.minor.
    /// </summary>
    public static IReadOnlyList<CompatibilityProblem> CheckUnifiedAssemblies(string appRoot, HostFacts facts) =>
        UnifiedAssemblyRequests(appRoot, facts, established: true);

    /// <summary>
    /// Requests for unified assemblies whose host version host-facts.json does not establish (null): neither passed nor
    /// failed, listed so the local host can say so and a reader can settle them. The shipped facts establish every
    /// version, so with them this is empty.
    /// </summary>
    public static IReadOnlyList<CompatibilityProblem> UnverifiableUnifiedAssemblies(string appRoot, HostFacts facts) =>
        UnifiedAssemblyRequests(appRoot, facts, established: false);

    private static List<CompatibilityProblem> UnifiedAssemblyRequests(string appRoot, HostFacts facts, bool established)
    {
        var unified = facts.UnifiedAssemblies.ToDictionary(a => a.Name, StringComparer.OrdinalIgnoreCase);
        var requests = new SortedDictionary<string, SortedSet<string>>(StringComparer.Ordinal);
        var bin = Path.Combine(appRoot, "bin");
        var fromAssemblies = Directory.EnumerateFiles(bin, "*.dll").Order(StringComparer.Ordinal).SelectMany(AssemblyRequests);
        var fromDeps = FunctionDepsFile.Read(bin).Assets
            .Where(a => a.AssemblyVersion is not null)
            .Select(a => (a.Name, Version: a.AssemblyVersion!, By: $"{FunctionDepsFile.FileName} ({a.Library})"));
        foreach (var (name, version, by) in fromAssemblies.Concat(fromDeps))
        {
            if (!unified.TryGetValue(name, out var rule))
            {
                continue;
            }

            var hostVersion = rule.HostVersion is null ? null : new Version(rule.HostVersion);
            if ((hostVersion is not null) != established
                || (hostVersion is not null && (version.Major, version.Minor).CompareTo((hostVersion.Major, hostVersion.Minor)) <= 0))
            {
                continue;
            }

            var key = hostVersion is null
                ? $"{name} {version} ({rule.ResolutionPolicy}) is not checked: tools/HostCompatibility/host-facts.json does not establish the version host {facts.HostVersion} ships"
                : $"{name} {version} is above the {hostVersion} host {facts.HostVersion} ships ({rule.ResolutionPolicy}: "
                    + (rule.ResolutionPolicy == "runtimeVersion" ? "the app gets the host's older copy" : "the host fails to load it") + ")";
            if (!requests.TryGetValue(key, out var users))
            {
                requests[key] = users = new SortedSet<string>(StringComparer.Ordinal);
            }

            users.Add(by);
        }

        return
        [
            .. requests.Select(r => established
                ? new CompatibilityProblem("unified-assembly", $"{r.Key}; asked for by {string.Join(", ", r.Value)}. Lower the package that asks for it.")
                : new CompatibilityProblem(
                    "unified-assembly-unverifiable",
                    $"{r.Key}; asked for by {string.Join(", ", r.Value)}. Nothing to do to run locally; before deploying, establish that version from the host's dependency baseline and set its hostVersion."))
        ];
    }

    /// <summary><c>Microsoft.NET.Sdk.Functions</c> (which writes each function.json's <c>generatedBy</c>) is at least the minimum.</summary>
    public static IReadOnlyList<CompatibilityProblem> CheckFunctionsSdk(string appRoot, HostFacts facts)
    {
        const string Prefix = "Microsoft.NET.Sdk.Functions.Generator-";
        var minimum = new Version(facts.MinimumFunctionsSdkVersion);
        var functions = FunctionMetadataReader.ReadAll(appRoot);
        var problems = new List<CompatibilityProblem>();
        foreach (var function in functions)
        {
            var generatedBy = function.GeneratedBy;
            var version = generatedBy?.StartsWith(Prefix, StringComparison.Ordinal) == true
                && Version.TryParse(generatedBy[Prefix.Length..].Split('-', '+')[0], out var parsed) ? parsed : null;
            if (version is null || version < minimum)
            {
                problems.Add(new CompatibilityProblem(
                    "functions-sdk",
                    $"{function.Name}/function.json was generated by '{generatedBy ?? "(unknown)"}': Microsoft.NET.Sdk.Functions must be {minimum} or later for .NET 8 in-process apps."));
            }
        }

        return problems;
    }

    /// <summary>
    /// Every [FunctionName] method in bin/ has a function.json; each function.json has one trigger, an entry point and a
    /// script file that exist; every binding naming a queue names it and its connection, with a flat <c>%Setting%</c>
    /// (the platform does not resolve nested <c>%A:B%</c> names for triggers).
    /// </summary>
    public static IReadOnlyList<CompatibilityProblem> CheckFunctionMetadata(string appRoot)
    {
        var problems = new List<CompatibilityProblem>();
        var functions = FunctionMetadataReader.ReadAll(appRoot).ToDictionary(f => f.Name, StringComparer.OrdinalIgnoreCase);
        foreach (var file in Directory.EnumerateFiles(Path.Combine(appRoot, "bin"), "*.dll").Order(StringComparer.Ordinal))
        {
            foreach (var name in FunctionNames(file))
            {
                if (!functions.ContainsKey(name))
                {
                    problems.Add(new CompatibilityProblem("function-metadata", $"[FunctionName(\"{name}\")] in {Path.GetFileName(file)} has no {name}/function.json."));
                }
            }
        }

        foreach (var function in functions.Values)
        {
            var where = $"{function.Name}/function.json";
            if (function.Triggers.Count != 1)
            {
                problems.Add(new CompatibilityProblem("function-metadata", $"{where} has {function.Triggers.Count} trigger bindings; the host needs exactly one."));
            }

            if (string.IsNullOrEmpty(function.EntryPoint))
            {
                problems.Add(new CompatibilityProblem("function-metadata", $"{where} has no entryPoint."));
            }

            if (function.ScriptFile is not { Length: > 0 } script || !File.Exists(Path.Combine(Path.GetDirectoryName(function.Path)!, script)))
            {
                problems.Add(new CompatibilityProblem("function-metadata", $"{where}: scriptFile '{function.ScriptFile}' does not exist."));
            }

            foreach (var binding in function.Bindings)
            {
                var type = FunctionDefinition.Text(binding, "type") ?? "";
                var queueName = FunctionDefinition.Text(binding, "queueName");
                if (queueName is null && !type.Contains("queue", StringComparison.OrdinalIgnoreCase))
                {
                    continue;
                }

                if (string.IsNullOrWhiteSpace(queueName))
                {
                    problems.Add(new CompatibilityProblem("function-metadata", $"{where}: binding '{type}' names no queueName."));
                }
                else if (queueName.StartsWith('%') && queueName.Contains(':', StringComparison.Ordinal))
                {
                    problems.Add(new CompatibilityProblem("function-metadata", $"{where}: binding '{type}' queueName '{queueName}' is a nested setting; the platform resolves only flat names (e.g. %WidgetInputQueue%)."));
                }

                if (string.IsNullOrWhiteSpace(FunctionDefinition.Text(binding, "connection")))
                {
                    problems.Add(new CompatibilityProblem("function-metadata", $"{where}: binding '{type}' names no connection."));
                }
            }
        }

        return problems;
    }

    /// <summary>The assembly itself and every assembly it references, as (name, version, who asks).</summary>
    private static IEnumerable<(string Name, Version Version, string By)> AssemblyRequests(string file)
    {
        using var stream = File.OpenRead(file);
        using var pe = new PEReader(stream);
        if (!pe.HasMetadata)
        {
            yield break;
        }

        var metadata = pe.GetMetadataReader();
        if (!metadata.IsAssembly)
        {
            yield break;
        }

        var self = metadata.GetAssemblyDefinition();
        var selfName = metadata.GetString(self.Name);
        yield return (selfName, self.Version, $"{Path.GetFileName(file)} itself");
        foreach (var handle in metadata.AssemblyReferences)
        {
            var reference = metadata.GetAssemblyReference(handle);
            yield return (metadata.GetString(reference.Name), reference.Version, $"{selfName} {self.Version}");
        }
    }

    /// <summary>The names in every [FunctionName("…")] on a method of <paramref name="file"/>, read from metadata without loading it.</summary>
    private static List<string> FunctionNames(string file)
    {
        using var stream = File.OpenRead(file);
        using var pe = new PEReader(stream);
        var names = new List<string>();
        if (!pe.HasMetadata)
        {
            return names;
        }

        var metadata = pe.GetMetadataReader();
        foreach (var methodHandle in metadata.MethodDefinitions)
        {
            foreach (var attributeHandle in metadata.GetMethodDefinition(methodHandle).GetCustomAttributes())
            {
                var attribute = metadata.GetCustomAttribute(attributeHandle);
                if (attribute.Constructor.Kind != HandleKind.MemberReference)
                {
                    continue;
                }

                var parent = metadata.GetMemberReference((MemberReferenceHandle)attribute.Constructor).Parent;
                if (parent.Kind != HandleKind.TypeReference || metadata.GetString(metadata.GetTypeReference((TypeReferenceHandle)parent).Name) != "FunctionNameAttribute")
                {
                    continue;
                }

                var blob = metadata.GetBlobReader(attribute.Value);
                blob.ReadUInt16(); // prolog 0x0001
                if (blob.ReadSerializedString() is { } name)
                {
                    names.Add(name);
                }
            }
        }

        return names;
    }
}
