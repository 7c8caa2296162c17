using System.Text;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;
using Newtonsoft.Json;

namespace WidgetSigning.Tests.Signing;

/// <summary>Different spellings of the same envelope sign the same; see docs/signing-contract.md, "The input the service accepts".</summary>
public sealed class InvarianceTests
{
    private const string Id = "8dfbf609-5ad3-452d-8a94-fbc6bdadbba5";
    private readonly TestServices _services = new();
    private readonly Vector _vector = Vector.Load("one-widget");

    public static TheoryData<string> Spellings => new()
    {
        "indented",
        "reversed-members",
        "shuffled-members",
        "upper-case-names",
        "pascal-case-names",
        "guid-upper",
        "guid-n",
        "guid-b",
        "guid-p",
        "offset-plus-two",
        "offset-minus-five-thirty",
        "no-offset",
        "trailing-zero-fraction",
        "escaped-ascii",
    };

    [Theory]
    [MemberData(nameof(Spellings))]
    public void Sign_EquivalentSpelling_GivesTheVectorSignature(string spelling)
    {
        // Arrange
        var json = Respell(spelling);

        // Act
        var envelope = _services.Read(Encoding.UTF8.GetBytes(json));
        var signature = _services.Signer.ComputeSignature(envelope);

        // Assert
        Assert.Equal(_vector.SignatureHex, signature.ToHex());
    }

    private string Respell(string spelling)
    {
        var root = JObject.Parse(Encoding.UTF8.GetString(_vector.Input));
        var widget = (JObject)root["widgets"]![0]!;
        switch (spelling)
        {
            case "indented":
                return root.ToString(Formatting.Indented).Replace("\n", "\r\n\t ", StringComparison.Ordinal);
            case "reversed-members":
                return Rebuild(root, widget.Properties().Reverse());
            case "shuffled-members":
                return Rebuild(root, widget.Properties().OrderBy(p => p.Name.GetHashCode(StringComparison.Ordinal) ^ 0x5a5a));
            case "upper-case-names":
                return Rebuild(root, widget.Properties().Select(p => new JProperty(p.Name.ToUpperInvariant(), p.Value)), "WIDGETS");
            case "pascal-case-names":
                return Rebuild(root, widget.Properties().Select(p => new JProperty(char.ToUpperInvariant(p.Name[0]) + p.Name[1..], p.Value)), "Widgets");
            case "guid-upper":
                widget["id"] = Id.ToUpperInvariant();
                break;
            case "guid-n":
                widget["id"] = Guid.Parse(Id).ToString("N");
                break;
            case "guid-b":
                widget["id"] = Guid.Parse(Id).ToString("B");
                break;
            case "guid-p":
                widget["id"] = Guid.Parse(Id).ToString("P");
                break;
            case "offset-plus-two":
                widget["createdUtc"] = "2022-10-08T00:21:35.289644+02:00";
                break;
            case "offset-minus-five-thirty":
                widget["createdUtc"] = "2022-10-07T16:51:35.289644-05:30";
                break;
            case "no-offset":
                widget["createdUtc"] = "2022-10-07T22:21:35.289644";
                break;
            case "trailing-zero-fraction":
                widget["createdUtc"] = "2022-10-07T22:21:35.2896440Z";
                break;
            case "escaped-ascii":
                return root.ToString(Formatting.None).Replace("My3toIbn4hdHhOZCAo17pcr8", "\\u004dy3toIbn4hdHhOZCAo17pcr\\u0038", StringComparison.Ordinal);
            default:
                throw new ArgumentOutOfRangeException(nameof(spelling));
        }

        // Date strings must stay strings: JObject.Parse would otherwise re-format them.
        return root.ToString(Formatting.None);
    }

    private static string Rebuild(JObject root, IEnumerable<JProperty> members, string widgetsName = "widgets")
    {
        var rebuilt = new JObject(new JProperty(widgetsName, new JArray(new JObject(members.Select(m => new JProperty(m.Name, m.Value))))));
        _ = root;
        return rebuilt.ToString(Formatting.None);
    }
}
