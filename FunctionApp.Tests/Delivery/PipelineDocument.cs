using FunctionApp.Tests.Infra;
using YamlDotNet.RepresentationModel;

namespace FunctionApp.Tests.Delivery;

/// <summary>azure-pipelines.yml, parsed with YamlDotNet, with look-ups for stages, jobs and steps.</summary>
public sealed class PipelineDocument
{
    private PipelineDocument(YamlMappingNode root) => Root = root;

    public YamlMappingNode Root { get; }

    public static PipelineDocument Load()
    {
        var stream = new YamlStream();
        using (var reader = new StringReader(RepoFiles.ReadAllText("azure-pipelines.yml")))
        {
            stream.Load(reader);
        }

        return new PipelineDocument((YamlMappingNode)Assert.Single(stream.Documents).RootNode);
    }

    public IReadOnlyList<YamlMappingNode> Stages => Sequence(Root, "stages").Cast<YamlMappingNode>().ToList();

    public YamlMappingNode Stage(string name) =>
        Stages.SingleOrDefault(s => Scalar(s, "stage") == name) ?? throw new KeyNotFoundException($"No stage '{name}' in azure-pipelines.yml.");

    public IReadOnlyDictionary<string, string> Variables =>
        ((YamlMappingNode)Root.Children[new YamlScalarNode("variables")]).Children.ToDictionary(
            c => ((YamlScalarNode)c.Key).Value!, c => ((YamlScalarNode)c.Value).Value!, StringComparer.Ordinal);

    /// <summary>The runtime parameters, by name.</summary>
    public IReadOnlyDictionary<string, YamlMappingNode> Parameters =>
        Sequence(Root, "parameters").Cast<YamlMappingNode>().ToDictionary(p => Scalar(p, "name")!, StringComparer.Ordinal);

    /// <summary>The stage's jobs: plain jobs and deployment jobs.</summary>
    public static IReadOnlyList<YamlMappingNode> Jobs(YamlMappingNode stage) => Sequence(stage, "jobs").Cast<YamlMappingNode>().ToList();

    /// <summary>The steps of every job in the stage (a deployment job's runOnce deploy steps included).</summary>
    public static IReadOnlyList<YamlMappingNode> Steps(YamlMappingNode stage) =>
        Jobs(stage).SelectMany(job => job.Children.ContainsKey(new YamlScalarNode("strategy"))
                ? Sequence(Mapping(Mapping(Mapping(job, "strategy"), "runOnce"), "deploy"), "steps")
                : Sequence(job, "steps"))
            .Cast<YamlMappingNode>()
            .ToList();

    public static IEnumerable<YamlMappingNode> Tasks(YamlMappingNode stage, string task) =>
        Steps(stage).Where(s => Scalar(s, "task") == task);

    public static IEnumerable<string> Scripts(YamlMappingNode stage) =>
        Steps(stage).Select(s => Scalar(s, "script")).OfType<string>();

    /// <summary>Every shell the stage runs: script steps and AzureCLI@2 inline scripts and script files.</summary>
    public static IEnumerable<string> Shell(YamlMappingNode stage) =>
        Scripts(stage)
            .Concat(Tasks(stage, "AzureCLI@2").Select(t => Scalar(Mapping(t, "inputs"), "inlineScript")).OfType<string>())
            .Concat(Tasks(stage, "AzureCLI@2").Select(t => Scalar(Mapping(t, "inputs"), "scriptPath")).OfType<string>().Select(p => RepoFiles.ReadAllText(p)));

    public static string? Scalar(YamlMappingNode node, string key)
    {
        ArgumentNullException.ThrowIfNull(node);
        return node.Children.TryGetValue(new YamlScalarNode(key), out var value) && value is YamlScalarNode scalar ? scalar.Value : null;
    }

    public static string Input(YamlMappingNode task, string key) =>
        Scalar(Mapping(task, "inputs"), key) ?? throw new KeyNotFoundException($"Task {Scalar(task, "task")} has no input '{key}'.");

    public static YamlMappingNode Mapping(YamlMappingNode node, string key)
    {
        ArgumentNullException.ThrowIfNull(node);
        return node.Children.TryGetValue(new YamlScalarNode(key), out var value) && value is YamlMappingNode mapping
            ? mapping
            : throw new KeyNotFoundException($"No mapping '{key}'.");
    }

    public static YamlSequenceNode Sequence(YamlMappingNode node, string key)
    {
        ArgumentNullException.ThrowIfNull(node);
        return node.Children.TryGetValue(new YamlScalarNode(key), out var value) && value is YamlSequenceNode sequence
            ? sequence
            : throw new KeyNotFoundException($"No sequence '{key}'.");
    }

    /// <summary>dependsOn as a list, whether written as one name or a sequence.</summary>
    public static IReadOnlyList<string> DependsOn(YamlMappingNode stage)
    {
        ArgumentNullException.ThrowIfNull(stage);
        if (!stage.Children.TryGetValue(new YamlScalarNode("dependsOn"), out var value))
        {
            return [];
        }

        return value is YamlSequenceNode sequence
            ? sequence.Children.Cast<YamlScalarNode>().Select(s => s.Value!).ToList()
            : [((YamlScalarNode)value).Value!];
    }
}
