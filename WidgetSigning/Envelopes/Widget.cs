namespace WidgetSigning.Envelopes;

/// <summary>One widget of an envelope. Every member is required; see docs/signing-contract.md.</summary>
internal sealed class Widget
{
    /// <summary>The widget's identifier; written in lowercase <c>D</c> form.</summary>
    public Guid Id { get; init; }

    /// <summary>Free-form string property 0.</summary>
    public required string Property0 { get; init; }

    /// <summary>Free-form string property 1.</summary>
    public required string Property1 { get; init; }

    /// <summary>Free-form string property 2.</summary>
    public required string Property2 { get; init; }

    /// <summary>Free-form string property 3.</summary>
    public required string Property3 { get; init; }

    /// <summary>Free-form string property 4.</summary>
    public required string Property4 { get; init; }

    /// <summary>Free-form string property 5.</summary>
    public required string Property5 { get; init; }

    /// <summary>Free-form string property 6.</summary>
    public required string Property6 { get; init; }

    /// <summary>Free-form string property 7.</summary>
    public required string Property7 { get; init; }

    /// <summary>Free-form string property 8.</summary>
    public required string Property8 { get; init; }

    /// <summary>Free-form string property 9.</summary>
    public required string Property9 { get; init; }

    /// <summary>Creation time; always <see cref="DateTimeKind.Utc"/>.</summary>
    public DateTime CreatedUtc { get; init; }
}
