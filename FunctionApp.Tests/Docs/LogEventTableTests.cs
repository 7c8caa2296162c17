using System.Reflection;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Tests.Docs;

/// <summary>The event-id table in docs/operations.md lists exactly the app's <c>[LoggerMessage]</c> events, as the code declares them.</summary>
public sealed class LogEventTableTests
{
    /// <summary>
    /// The assemblies that log: the core, the in-process app's adapters and trigger, and the isolated app's hosting (its Kestrel
    /// memory pool; the app is net10.0, so it is loaded from its build output, as IsolatedBuildOutput describes).
    /// </summary>
    private static readonly Assembly[] App =
    [
        typeof(WidgetSigning.Signing.EnvelopeSigner).Assembly,
        typeof(FunctionApp.Startup).Assembly,
        TestKit.IsolatedBuildOutput.App,
    ];

    /// <summary>Every <c>[LoggerMessage]</c> in WidgetSigning.dll and FunctionApp.dll, with the file its class lives in (project/folder/Type.cs, as the guide's one-type-per-file rule has it).</summary>
    private static IReadOnlyList<(LoggerMessageAttribute Attribute, string Source)> Declared() => App.SelectMany(a => a.GetTypes())
        .SelectMany(t => t.GetMethods(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static | BindingFlags.Instance | BindingFlags.DeclaredOnly))
        .Select(m => (Attribute: m.GetCustomAttribute<LoggerMessageAttribute>(), Method: m))
        .Where(x => x.Attribute is not null)
        .Select(x => (x.Attribute!, SourceOf(x.Method.DeclaringType!)))
        .ToList();

    [Fact]
    public void LoggerMessages_InApp_HaveUniqueEventIds()
    {
        // Act
        var duplicates = Declared().GroupBy(d => d.Attribute.EventId).Where(g => g.Count() > 1).Select(g => g.Key).ToList();

        // Assert
        Assert.True(Declared().Count >= 20, $"found only {Declared().Count} [LoggerMessage] methods; is the attribute still kept in metadata?");
        Assert.Empty(duplicates);
    }

    [Fact]
    public void EventIdTable_InOperationsDoc_ListsExactlyTheAppsLoggerMessages()
    {
        // Arrange
        var expected = Declared()
            .OrderBy(d => d.Attribute.EventId)
            .Select(d => $"{d.Attribute.EventId} | {d.Attribute.Level} | `{d.Source}` | {d.Attribute.Message}")
            .ToList();

        // Act
        var documented = MarkdownFile.Load("docs/operations.md").TableRows("id")
            .Select(r => string.Join(" | ", r))
            .ToList();

        // Assert
        Assert.Equal(expected, documented);
    }

    private static string SourceOf(Type type) =>
        type.Assembly.GetName().Name + "/" + type.Namespace![(type.Assembly.GetName().Name!.Length + 1)..].Replace('.', '/') + "/" + type.Name + ".cs";
}
