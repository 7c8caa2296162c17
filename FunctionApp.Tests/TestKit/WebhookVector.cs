using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.TestKit;

/// <summary>One Standard Webhooks known answer from TestData/webhook-vectors (copied from the shared contract, never edited).</summary>
public sealed class WebhookVector
{
    private WebhookVector(string file)
    {
        var json = JObject.Parse(File.ReadAllText(file));
        Case = json.Value<string>("case")!;
        Key = json.Value<string>("key")!;
        Secret = json.Value<string>("secret")!;
        Id = json.Value<string>("id")!;
        Timestamp = json.Value<long>("timestamp");
        Signature = json.Value<string>("signature")!;
    }

    public string Case { get; }

    public string Key { get; }

    public string Secret { get; }

    public string Id { get; }

    public long Timestamp { get; }

    public string Signature { get; }

    public Vector Vector => Vector.Load(Case);

    public static string Root => Path.Combine(AppContext.BaseDirectory, "TestData", "webhook-vectors");

    public static WebhookVector Load(string name) => new(Path.Combine(Root, name + ".json"));

    public static TheoryData<string> Names()
    {
        var data = new TheoryData<string>();
        foreach (var file in Directory.GetFiles(Root, "*.json").OrderBy(f => f, StringComparer.Ordinal))
        {
            data.Add(Path.GetFileNameWithoutExtension(file));
        }

        return data;
    }

    public override string ToString() => Case;
}
