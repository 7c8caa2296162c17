namespace WidgetSigning.Signing;

/// <summary>
/// The <see cref="SignatureForms"/> as clients and operators write them (<c>plain</c>, <c>webhook</c>, <c>both</c>), and
/// what each includes.
/// </summary>
internal static class SignatureFormNames
{
    /// <summary>The plain signature alone.</summary>
    public const string Plain = "plain";

    /// <summary>The Standard Webhooks signature alone.</summary>
    public const string Webhook = "webhook";

    /// <summary>Both forms.</summary>
    public const string Both = "both";

    /// <summary>The accepted values, for error messages.</summary>
    public const string Rule = "'" + Plain + "', '" + Webhook + "' or '" + Both + "'";

    /// <summary>Whether <paramref name="forms"/> includes the plain signature.</summary>
    public static bool HasPlain(this SignatureForms forms) => forms != SignatureForms.Webhook;

    /// <summary>Whether <paramref name="forms"/> includes the Standard Webhooks signature.</summary>
    public static bool HasWebhook(this SignatureForms forms) => forms != SignatureForms.Plain;

    /// <summary>Whether every form <paramref name="requested"/> names is among <paramref name="allowed"/>.</summary>
    public static bool IsWithin(this SignatureForms requested, SignatureForms allowed) =>
        (!requested.HasPlain() || allowed.HasPlain()) && (!requested.HasWebhook() || allowed.HasWebhook());

    /// <summary>The value as written (<c>plain</c>, <c>webhook</c>, <c>both</c>).</summary>
    public static string NameOf(SignatureForms forms) => forms switch
    {
        SignatureForms.Plain => Plain,
        SignatureForms.Webhook => Webhook,
        _ => Both,
    };

    /// <summary>Parses an exact lowercase name; false for anything else (no numbers, no other case, no lists).</summary>
    public static bool TryParse(string? value, out SignatureForms forms)
    {
        (var known, forms) = value switch
        {
            Plain => (true, SignatureForms.Plain),
            Webhook => (true, SignatureForms.Webhook),
            Both => (true, SignatureForms.Both),
            _ => (false, SignatureForms.Both),
        };
        return known;
    }
}
