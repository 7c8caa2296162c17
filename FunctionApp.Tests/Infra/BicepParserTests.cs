using FunctionApp.Tests.Infra.Bicep;

namespace FunctionApp.Tests.Infra;

/// <summary>The structural reader the infra checks rely on: it must read what it claims and refuse the rest.</summary>
public sealed class BicepParserTests
{
    [Fact]
    public void Parse_ResourceWithNestedObjectsArraysAndInterpolation_BuildsTheTree()
    {
        const string source = """
            @description('It\'s a name.')
            @minLength(3)
            param name string = 'x'

            resource site 'Microsoft.Web/sites@2023-12-01' = if (!empty(name)) {
              name: 'func-${name}-${uniqueString(resourceGroup().id)}'
              identity: {
                '${name}': {}
              }
              properties: {
                httpsOnly: true
                list: [
                  {
                    name: 'A'
                    value: isPremium ? 'b' : 'c'
                  }
                  'plain'
                ]
              }
            }
            """;

        var file = BicepFile.FromSource("test.bicep", source);

        var param = file.Param("name");
        Assert.Equal("It's a name.", param.Description);
        Assert.Equal("string", param.Type);
        Assert.Equal("x", InfraFiles.Literal(param.Value!));
        var site = file.Resource("site");
        Assert.Equal("Microsoft.Web/sites", site.ResourceType);
        Assert.Equal("(!empty(name))", site.Condition);
        Assert.True(((BicepString)site.Body["name"]).IsInterpolated);
        Assert.Equal("true", site.Body.Path("properties.httpsOnly").Text);
        Assert.True(site.Body.Object("identity").Has("'${name}'"));
        var list = site.Body.Object("properties").Array("list");
        Assert.Equal(2, list.Items.Count);
        Assert.Equal("isPremium?'b':'c'", list.Objects.Single()["value"].Text);
    }

    [Theory]
    [InlineData("import 'x.bicep'", "unsupported statement 'import'")]
    [InlineData("resource r 'A/b@1' = [for i in range(0, 2): {}]", "loop")]
    [InlineData("var x = {\n  a: {} 2\n}", "unexpected '2'")]
    [InlineData("var x = {\n  a: 1\n  a: 2\n}", "appears twice")]
    [InlineData("var s = 'open", "unterminated string")]
    [InlineData("@description('dangling')", "decorator without a declaration")]
    public void Parse_SyntaxItDoesNotRead_Throws(string source, string message)
    {
        var ex = Assert.Throws<BicepSyntaxException>(() => BicepParser.Parse(source));

        Assert.Contains(message, ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_CommentsAndMultiLineStrings_AreNotCode()
    {
        const string source = """
            // param hidden string
            /* output leaked string = 'x'
               */
            var text = '''
            resource fake 'A/b@1' = {}
            '''
            """;

        var file = BicepFile.FromSource("test.bicep", source);

        Assert.Equal(["text"], file.Declarations.Select(d => d.Name));
    }

    [Theory]
    [MemberData(nameof(InfraFiles.BicepPathData), MemberType = typeof(InfraFiles))]
    public void Load_EveryInfraFile_ParsesWhole(string path)
    {
        var file = BicepFile.Load(path);

        Assert.NotEmpty(file.Declarations);
    }
}
