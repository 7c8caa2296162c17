namespace FunctionApp.Benchmarks.Seed;

/// <summary>The seed benchmark's widget, as published: a POCO with PascalCase properties.</summary>
public class SeedWidget
{
    /// <summary>Random GUID.</summary>
    public Guid Id { get; set; }

    /// <summary><c>"Property0" + index</c>.</summary>
    public string Property0 { get; set; } = null!;

    /// <summary><c>"Property1" + index</c>.</summary>
    public string Property1 { get; set; } = null!;

    /// <summary><c>"Property2" + index</c>.</summary>
    public string Property2 { get; set; } = null!;

    /// <summary><c>"Property3" + index</c>.</summary>
    public string Property3 { get; set; } = null!;

    /// <summary><c>"Property4" + index</c>.</summary>
    public string Property4 { get; set; } = null!;

    /// <summary><c>"Property5" + index</c>.</summary>
    public string Property5 { get; set; } = null!;

    /// <summary><c>"Property6" + index</c>.</summary>
    public string Property6 { get; set; } = null!;

    /// <summary><c>"Property7" + index</c>.</summary>
    public string Property7 { get; set; } = null!;

    /// <summary><c>"Property8" + index</c>.</summary>
    public string Property8 { get; set; } = null!;

    /// <summary><c>"Property9" + index</c>.</summary>
    public string Property9 { get; set; } = null!;

    /// <summary>UTC now when the widget was made.</summary>
    public DateTime CreatedUtc { get; set; }
}
