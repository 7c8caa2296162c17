using System.Reflection;

namespace FunctionApp.Tests.Infra;

/// <summary>
/// The settings the app reads, found by reflection rather than listed by hand (other work adds and moves options):
/// every options class with a <c>SectionName</c> constant and its settable properties, and every connection name a
/// function's trigger or binding attribute asks for. An empty <c>SectionName</c> means flat settings at the root
/// (the queue and container names): their keys are the bare property names.
/// </summary>
public static class AppOptionsCatalog
{
    /// <summary>The options live in the core; the trigger attributes in the in-process app (the isolated app's are the same names: Isolated/ tests compare them).</summary>
    private static readonly Assembly[] App = [typeof(WidgetSigning.Signing.EnvelopeSigner).Assembly, typeof(FunctionApp.Startup).Assembly];

    /// <summary>Options classes by section name (e.g. <c>KeyVault</c>, <c>Queues</c>; empty for flat settings).</summary>
    public static IReadOnlyDictionary<string, Type> Sections { get; } = App.SelectMany(a => a.GetTypes())
        .Where(t => t.IsClass && !t.IsAbstract)
        .Select(t => (Type: t, Field: t.GetField("SectionName", BindingFlags.Public | BindingFlags.Static)))
        .Where(x => x.Field is { IsLiteral: true } && x.Field.FieldType == typeof(string))
        .ToDictionary(x => (string)x.Field!.GetRawConstantValue()!, x => x.Type, StringComparer.OrdinalIgnoreCase);

    /// <summary>The settable properties of an options class (what configuration binding fills).</summary>
    public static IReadOnlyList<PropertyInfo> Properties(Type options) =>
        options.GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.CanWrite && p.SetMethod!.IsPublic).ToList();

    /// <summary>The dictionary properties of an options class: one setting per key, <c>Section:Property:key</c> (the receivers' development keys).</summary>
    public static IReadOnlyList<PropertyInfo> Dictionaries(Type options) =>
        options.GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.PropertyType.IsGenericType && p.PropertyType.GetGenericTypeDefinition() == typeof(Dictionary<,>)).ToList();

    /// <summary>Every option as <c>Section:Property</c> (or the bare name of a flat one) with its documented default (a fresh instance's value).</summary>
    public static IReadOnlyDictionary<string, object?> Defaults { get; } = Sections
        .SelectMany(s =>
        {
            var instance = Activator.CreateInstance(s.Value);
            return Properties(s.Value).Select(p => KeyValuePair.Create(s.Key.Length == 0 ? p.Name : $"{s.Key}:{p.Name}", p.GetValue(instance)));
        })
        .ToDictionary(StringComparer.OrdinalIgnoreCase);

    /// <summary>The flat settings (options classes with an empty section name), by name.</summary>
    public static IReadOnlySet<string> FlatSettings { get; } = Sections
        .Where(s => s.Key.Length == 0)
        .SelectMany(s => Properties(s.Value).Select(p => p.Name))
        .ToHashSet(StringComparer.OrdinalIgnoreCase);

    /// <summary>
    /// Connection names the functions' attributes ask for (a <c>Connection</c> property, e.g. the storage extension's
    /// QueueTrigger), with <c>%setting%</c> left as written.
    /// </summary>
    public static IReadOnlyList<string> AttributeConnections { get; } = App.SelectMany(a => a.GetTypes())
        .SelectMany(t => t.GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly))
        .SelectMany(m => m.GetParameters())
        .SelectMany(p => p.GetCustomAttributes(inherit: false))
        .Select(a => a.GetType().GetProperty("Connection")?.GetValue(a) as string)
        .OfType<string>()
        .Where(c => c.Length > 0)
        .Distinct(StringComparer.Ordinal)
        .ToList();

    /// <summary>
    /// Whether <paramref name="key"/> (<c>Section:Property</c> or <c>Section__Property</c>, or a flat setting's name)
    /// is a setting of an options class the app has; then <paramref name="known"/> tells whether that class has the property.
    /// </summary>
    public static bool InSection(string key, out bool known)
    {
        ArgumentNullException.ThrowIfNull(key);
        if (FlatSettings.Contains(key))
        {
            known = true;
            return true;
        }

        var parts = key.Replace("__", ":", StringComparison.Ordinal).Split(':');
        known = false;
        if (parts.Length < 2 || !Sections.TryGetValue(parts[0], out var options))
        {
            return false;
        }

        known = (parts.Length == 2 && Properties(options).Any(p => string.Equals(p.Name, parts[1], StringComparison.OrdinalIgnoreCase)))
            || (parts.Length == 3 && Dictionaries(options).Any(p => string.Equals(p.Name, parts[1], StringComparison.OrdinalIgnoreCase)));
        return true;
    }
}
