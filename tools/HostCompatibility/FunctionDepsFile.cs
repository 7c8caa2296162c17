using System.Runtime.InteropServices;
using System.Text.Json;

namespace HostCompatibility;

/// <summary>
/// <c>bin/function.deps.json</c>, the app's deps file as the in-process host reads it
/// (<c>FunctionAssemblyLoadContext.InitializeDeps</c> and <c>TryGetDepsAsset</c>, commit in host-facts.json): the host
/// raises a request for a unified assembly to the version this file records, and loads the app's other assemblies from
/// the paths it records.
/// </summary>
public sealed class FunctionDepsFile
{
    /// <summary>The file name the host looks for in bin/ (<c>DotNetConstants.FunctionsDepsFileName</c>).</summary>
    public const string FileName = "function.deps.json";

    private readonly Dictionary<string, DepsAsset[]> _assets;

    private FunctionDepsFile(Dictionary<string, DepsAsset[]> assets) => _assets = assets;

    /// <summary>Every runtime assembly the file records, RID-specific ones included.</summary>
    public IEnumerable<DepsAsset> Assets => _assets.Values.SelectMany(a => a);

    /// <summary>
    /// The deps file in <paramref name="binDirectory"/>; empty when it is absent or unreadable, as the host treats it
    /// (it ignores a deps file it cannot read).
    /// </summary>
    public static FunctionDepsFile Read(string binDirectory)
    {
        var path = System.IO.Path.Combine(binDirectory, FileName);
        var assets = new Dictionary<string, DepsAsset[]>(StringComparer.OrdinalIgnoreCase);
        if (!File.Exists(path))
        {
            return new FunctionDepsFile(assets);
        }

        try
        {
            using var document = JsonDocument.Parse(File.ReadAllText(path));
            var root = document.RootElement;
            var target = root.GetProperty("runtimeTarget").GetProperty("name").GetString()!;
            var found = new List<DepsAsset>();
            foreach (var library in root.GetProperty("targets").GetProperty(target).EnumerateObject())
            {
                // As the host's SelectRuntimeAssemblyGroup: RID-specific assets keep their path; the default group is
                // flattened to file names, as deployments lay them out in bin/.
                if (library.Value.TryGetProperty("runtime", out var runtime))
                {
                    foreach (var file in runtime.EnumerateObject())
                    {
                        found.Add(Asset(library.Name, System.IO.Path.GetFileName(file.Name), file.Value, rid: null));
                    }
                }

                if (library.Value.TryGetProperty("runtimeTargets", out var runtimeTargets))
                {
                    foreach (var file in runtimeTargets.EnumerateObject()
                        .Where(f => f.Value.TryGetProperty("assetType", out var type) && type.GetString() == "runtime"))
                    {
                        found.Add(Asset(library.Name, file.Name, file.Value, file.Value.TryGetProperty("rid", out var rid) ? rid.GetString() : null));
                    }
                }
            }

            foreach (var group in found.Where(a => a.Path.EndsWith(".dll", StringComparison.OrdinalIgnoreCase)).GroupBy(a => a.Name, StringComparer.OrdinalIgnoreCase))
            {
                assets[group.Key] = [.. group];
            }
        }
        catch (Exception e) when (e is JsonException or KeyNotFoundException or InvalidOperationException or FormatException or OverflowException)
        {
            assets.Clear();
        }

        return new FunctionDepsFile(assets);
    }

    /// <summary>
    /// The asset the host would pick for <paramref name="name"/>: the only one, else the first match along the current
    /// RID's fallbacks, else the RID-agnostic one (<c>FunctionAssemblyLoadContext.TryGetDepsAsset</c>).
    /// </summary>
    public bool TryGetAsset(string name, out DepsAsset asset)
    {
        asset = null!;
        if (!_assets.TryGetValue(name, out var candidates))
        {
            return false;
        }

        asset = candidates.Length == 1
            ? candidates[0]
            : RidFallbacks().Select(rid => candidates.FirstOrDefault(a => string.Equals(a.Rid, rid, StringComparison.OrdinalIgnoreCase))).FirstOrDefault(a => a is not null)
                ?? candidates.FirstOrDefault(a => a.Rid is null)!;
        return asset is not null;
    }

    /// <summary>This machine's runtime identifier and its portable fallbacks, most specific first.</summary>
    public static IReadOnlyList<string> RidFallbacks()
    {
        var arch = RuntimeInformation.OSArchitecture switch
        {
            Architecture.X64 => "x64",
            Architecture.X86 => "x86",
            Architecture.Arm64 => "arm64",
            Architecture.Arm => "arm",
            _ => "unknown",
        };
        var os = OperatingSystem.IsWindows() ? "win" : OperatingSystem.IsMacOS() ? "osx" : "linux";
        return os == "win"
            ? [$"win-{arch}", "win", "any", "base"]
            : [$"{os}-{arch}", os, $"unix-{arch}", "unix", "any", "base"];
    }

    private static DepsAsset Asset(string library, string path, JsonElement file, string? rid)
    {
        var version = file.TryGetProperty("assemblyVersion", out var v) && Version.TryParse(v.GetString(), out var parsed) ? parsed : null;
        return new DepsAsset(library, System.IO.Path.GetFileNameWithoutExtension(path), path, version, rid);
    }
}
