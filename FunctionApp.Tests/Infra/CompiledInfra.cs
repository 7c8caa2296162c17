using System.Text.Json.Nodes;
using System.Text.RegularExpressions;

namespace FunctionApp.Tests.Infra;

/// <summary>
/// infra/ compiled once per test run by the pinned Bicep compiler: main.bicep's ARM JSON (every module is a nested
/// deployment with its template inline), each .bicepparam's parameters JSON, and every build and lint run with its
/// diagnostics. The tests read this JSON, which is what Azure deploys, never the Bicep source.
/// </summary>
public sealed partial class CompiledInfra
{
    private static readonly Lazy<CompiledInfra> Compiled = new(Compile, LazyThreadSafetyMode.ExecutionAndPublication);

    private CompiledInfra(JsonObject main, IReadOnlyDictionary<string, JsonObject> parameterFiles, IReadOnlyDictionary<string, BicepRun> runs, IReadOnlyDictionary<string, DeploymentSnapshot> snapshots)
    {
        Main = main;
        ParameterFiles = parameterFiles;
        Runs = runs;
        Snapshots = snapshots;
    }

    /// <summary>The subscription, resource group and location every snapshot is evaluated for.</summary>
    public const string SnapshotSubscription = "00000000-0000-0000-0000-000000000001";

    /// <summary>
    /// The app registration's client id every snapshot deploys with when its parameters set none: main.bicep requires one
    /// (the pipeline passes its environment's), and refuses a deployment without it.
    /// </summary>
    public const string SnapshotAuthClientId = "7a1e0000-0000-4000-8000-000000000002";

    /// <summary>The resource group of the snapshots.</summary>
    public const string SnapshotResourceGroup = "rg-widget-signing-test";

    /// <summary>
    /// Each .bicepparam evaluated by the pinned compiler's <c>bicep snapshot</c>: main.json with that file's parameters,
    /// conditions and expressions resolved as far as they can be without Azure (what that deployment would create).
    /// </summary>
    public IReadOnlyDictionary<string, DeploymentSnapshot> Snapshots { get; }

    /// <summary>The parameter file names as theory data.</summary>
    public static TheoryData<string> ParameterFileData()
    {
        var data = new TheoryData<string>();
        foreach (var file in ParameterFileNames)
        {
            data.Add(file);
        }

        return data;
    }

    /// <summary>
    /// Evaluates main.bicep for a .bicepparam written from <paramref name="parameters"/> (lines after the <c>using</c>),
    /// in a temporary copy of infra/: the snapshot, or the compiler's refusal (a <c>fail()</c> message) in the run.
    /// </summary>
    public static (BicepRun Run, DeploymentSnapshot? Snapshot) SnapshotOf(string parameters)
    {
        var copy = CopyInfra();
        try
        {
            var file = System.IO.Path.Combine(copy.FullName, "infra", "case.bicepparam");
            File.WriteAllText(file, WithAuthClientId("using './main.bicep'\n" + parameters + "\n"));
            return Snapshot(file);
        }
        finally
        {
            copy.Delete(recursive: true);
        }
    }

    /// <summary>The compiled infra/ (compiling it on first use).</summary>
    public static CompiledInfra Instance => Compiled.Value;

    /// <summary>The .bicepparam files in infra/, by file name (e.g. <c>main.consumption.bicepparam</c>).</summary>
    public static IReadOnlyList<string> ParameterFileNames =>
        Directory.GetFiles(RepoFiles.File("infra"), "*.bicepparam").Select(System.IO.Path.GetFileName).OfType<string>().Order(StringComparer.Ordinal).ToList();

    /// <summary>Every compiler command the run made (e.g. <c>build infra/main.bicep</c>), as data for theories.</summary>
    public static TheoryData<string> CommandData()
    {
        var data = new TheoryData<string>();
        foreach (var command in Commands())
        {
            data.Add(command);
        }

        return data;
    }

    /// <summary>main.bicep as ARM JSON.</summary>
    public JsonObject Main { get; }

    /// <summary>Each .bicepparam compiled to an ARM parameters file, by file name.</summary>
    public IReadOnlyDictionary<string, JsonObject> ParameterFiles { get; }

    /// <summary>Every compiler run, by command.</summary>
    public IReadOnlyDictionary<string, BicepRun> Runs { get; }

    /// <summary>main.bicep's module deployments.</summary>
    public IReadOnlyList<JsonObject> Modules => Main["resources"]!.AsArray().OfType<JsonObject>()
        .Where(r => (string?)r["type"] == "Microsoft.Resources/deployments").ToList();

    /// <summary>main.bicep's parameters block.</summary>
    public JsonObject Parameters => Main["parameters"]!.AsObject();

    /// <summary>The module deployment named <paramref name="name"/>.</summary>
    public JsonObject Module(string name) =>
        Modules.SingleOrDefault(m => (string?)m["name"] == name) ?? throw new KeyNotFoundException($"main.bicep has no module '{name}'.");

    /// <summary>The inline template of a module deployment.</summary>
    public static JsonObject Template(JsonObject module) => module["properties"]!["template"]!.AsObject();

    /// <summary>The resources a module's template declares (existing references are not in ARM JSON).</summary>
    public static IReadOnlyList<JsonObject> Resources(JsonObject module) =>
        Template(module)["resources"]!.AsArray().OfType<JsonObject>().ToList();

    /// <summary>Every resource of <paramref name="type"/> in every module, with the module's name.</summary>
    public IReadOnlyList<(string Module, JsonObject Resource)> ResourcesOfType(string type) =>
        Modules.SelectMany(m => Resources(m).Where(r => (string?)r["type"] == type).Select(r => ((string)m["name"]!, r))).ToList();

    /// <summary>The one resource of <paramref name="type"/> in <paramref name="module"/>.</summary>
    public JsonObject Resource(string module, string type) =>
        Assert.Single(Resources(Module(module)), r => (string?)r["type"] == type);

    /// <summary>The function app's app settings, by name, each value resolved as far as <see cref="Resolve"/> can.</summary>
    public IReadOnlyDictionary<string, string> AppSettings =>
        Resource("functionApp", "Microsoft.Web/sites")["properties"]!["siteConfig"]!["appSettings"]!.AsArray().OfType<JsonObject>()
            .ToDictionary(s => (string)s["name"]!, s => Resolve("functionApp", s["value"]!), StringComparer.Ordinal);

    /// <summary>
    /// A module's value with plain parameter hops followed: <c>[parameters('x')]</c> becomes what main.bicep passes for
    /// x, and a main.bicep parameter becomes its default. Other expressions come back as their ARM text.
    /// </summary>
    public string Resolve(string module, JsonNode value)
    {
        var text = value.GetValueKind() == System.Text.Json.JsonValueKind.String ? value.GetValue<string>() : value.ToJsonString();
        var hop = ParameterExpression().Match(text);
        if (!hop.Success)
        {
            return text;
        }

        var passed = Module(module)["properties"]!["parameters"]![hop.Groups[1].Value]?["value"];
        if (passed is null)
        {
            return text;
        }

        var passedText = passed.GetValueKind() == System.Text.Json.JsonValueKind.String ? passed.GetValue<string>() : passed.ToJsonString();
        var mainHop = ParameterExpression().Match(passedText);
        return mainHop.Success && Parameters[mainHop.Groups[1].Value]?["defaultValue"] is { } defaultValue
            ? defaultValue.GetValueKind() == System.Text.Json.JsonValueKind.String ? defaultValue.GetValue<string>() : defaultValue.ToJsonString()
            : passedText;
    }

    /// <summary>The values of main.bicep's allowed-list for a parameter.</summary>
    public IReadOnlyList<string> Allowed(string parameter) =>
        Parameters[parameter]!["allowedValues"]!.AsArray().Select(v => (string)v!).ToList();

    [GeneratedRegex(@"^\[parameters\('([A-Za-z0-9_]+)'\)\]$")]
    private static partial Regex ParameterExpression();

    private static IEnumerable<string> Commands()
    {
        yield return "build infra/main.bicep";
        yield return "lint infra/main.bicep";
        foreach (var file in ParameterFileNames)
        {
            yield return $"build-params infra/{file}";
            yield return $"lint infra/{file}";
        }
    }

    private static CompiledInfra Compile()
    {
        var output = Directory.CreateTempSubdirectory("infra-arm-");
        try
        {
            var runs = new Dictionary<string, BicepRun>(StringComparer.Ordinal);
            var parameterFiles = new Dictionary<string, JsonObject>(StringComparer.Ordinal);
            JsonObject? main = null;
            foreach (var command in Commands())
            {
                var parts = command.Split(' ');
                var target = System.IO.Path.Combine(output.FullName, System.IO.Path.GetFileName(parts[1]) + ".json");
                runs[command] = parts[0] switch
                {
                    "build" or "build-params" => BicepCompiler.Run(parts[0], parts[1], "--outfile", target),
                    _ => BicepCompiler.Run(parts[0], parts[1]),
                };
                if (parts[0] == "build" && File.Exists(target))
                {
                    main = JsonNode.Parse(File.ReadAllText(target))!.AsObject();
                }
                else if (parts[0] == "build-params" && File.Exists(target))
                {
                    parameterFiles[System.IO.Path.GetFileName(parts[1])] = JsonNode.Parse(File.ReadAllText(target))!.AsObject();
                }
            }

            var snapshots = new Dictionary<string, DeploymentSnapshot>(StringComparer.Ordinal);
            var copy = CopyInfra();
            try
            {
                foreach (var file in ParameterFileNames)
                {
                    var path = System.IO.Path.Combine(copy.FullName, "infra", file);
                    File.WriteAllText(path, WithAuthClientId(File.ReadAllText(path)));
                    var (run, snapshot) = Snapshot(path);
                    snapshots[file] = snapshot ?? throw new InvalidOperationException($"bicep snapshot infra/{file} failed: {run.Output}{run.Error}");
                }
            }
            finally
            {
                copy.Delete(recursive: true);
            }

            return new CompiledInfra(
                main ?? throw new InvalidOperationException($"bicep build infra/main.bicep produced no ARM JSON: {runs["build infra/main.bicep"].Error}"),
                parameterFiles,
                runs,
                snapshots);
        }
        finally
        {
            output.Delete(recursive: true);
        }
    }

    /// <summary>A .bicepparam's text with <see cref="SnapshotAuthClientId"/> added unless it sets authClientId itself.</summary>
    private static string WithAuthClientId(string bicepparam) =>
        Regex.IsMatch(bicepparam, @"^param authClientId\b", RegexOptions.Multiline)
            ? bicepparam
            : bicepparam.TrimEnd() + $"\nparam authClientId = '{SnapshotAuthClientId}'\n";

    /// <summary>A copy of infra/ (the snapshot command writes its result next to the .bicepparam; the checkout stays untouched).</summary>
    private static DirectoryInfo CopyInfra()
    {
        var copy = Directory.CreateTempSubdirectory("infra-snapshot-");
        var source = RepoFiles.File("infra");
        foreach (var file in Directory.GetFiles(source, "*.bicep*", SearchOption.AllDirectories))
        {
            var target = System.IO.Path.Combine(copy.FullName, "infra", System.IO.Path.GetRelativePath(source, file));
            Directory.CreateDirectory(System.IO.Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }

        return copy;
    }

    private static (BicepRun Run, DeploymentSnapshot? Snapshot) Snapshot(string bicepparam)
    {
        var run = BicepCompiler.Run("snapshot", bicepparam, "--mode", "overwrite", "--subscription-id", SnapshotSubscription, "--resource-group", SnapshotResourceGroup, "--location", "westeurope", "--tenant-id", "00000000-0000-0000-0000-000000000002");
        var result = System.IO.Path.ChangeExtension(bicepparam, ".snapshot.json");
        return (run, run.ExitCode == 0 && File.Exists(result) ? new DeploymentSnapshot(JsonNode.Parse(File.ReadAllText(result))!.AsObject()) : null);
    }
}
