/// ditto's common models (`pokeapi_ditto/commands/models.py`, `COMMON_MODELS`): shapes
/// that recur across endpoints, written once at `schema/v2/NAME.json` and referenced
/// from every pattern's schema by `$ref`.
///
/// The list and its order are ditto's: replacement runs model after model over the
/// whole tree, and later models contain references to earlier ones (`name` has
/// `language: {"$ref": named_api_resource}`), so they match only after those earlier
/// replacements.
package enum CommonSchemas {
    /// The `$ref` value and file of a common model: `/schema/v2/NAME.json`.
    static func reference(_ name: String) -> String { "\(APIShape.schemaBasePath)/\(name).json" }

    private static func type(_ name: String) -> SchemaValue { .object([("type", .string(name))]) }
    private static func ref(_ name: String) -> SchemaValue { .object([("$ref", .string(reference(name)))]) }
    private static func array(of items: SchemaValue) -> SchemaValue {
        .object([("items", items), ("type", .string("array"))])
    }
    /// An object model: every property required, in the models' (sorted) order.
    private static func object(_ properties: KeyValuePairs<String, SchemaValue>) -> SchemaValue {
        .object([
            ("properties", .object(properties.map { ($0.key, $0.value) })),
            ("required", .array(properties.map { .string($0.key) })),
            ("type", .string("object")),
        ])
    }

    private static func resourceList(of item: String) -> SchemaValue {
        object(["count": type("integer"), "next": type("null"), "previous": type("null"),
                "results": array(of: ref(item))])
    }

    /// `COMMON_MODELS`, in ditto's order: name (the file stem) and model.
    static let models: [(name: String, model: SchemaValue)] = [
        ("api_resource", object(["url": type("string")])),
        ("named_api_resource", object(["name": type("string"), "url": type("string")])),
        ("api_resource_list", resourceList(of: "api_resource")),
        ("named_api_resource_list", resourceList(of: "named_api_resource")),
        ("description", object(["description": type("string"), "language": ref("named_api_resource")])),
        ("effect", object(["effect": type("string"), "language": ref("named_api_resource")])),
        ("encounter", object([
            "chance": type("integer"), "condition_values": array(of: ref("named_api_resource")),
            "max_level": type("integer"), "method": ref("named_api_resource"), "min_level": type("integer"),
        ])),
        ("flavor_text", object(["flavor_text": type("string"), "language": ref("named_api_resource")])),
        ("generation_game_index", object(["game_index": type("integer"), "generation": ref("named_api_resource")])),
        ("machine_version_detail", object(["machine": ref("api_resource"), "version_group": ref("named_api_resource")])),
        ("name", object(["language": ref("named_api_resource"), "name": type("string")])),
        ("verbose_effect", object([
            "effect": type("string"), "language": ref("named_api_resource"), "short_effect": type("string"),
        ])),
        ("version_encounter_detail", object([
            "encounter_details": array(of: ref("encounter")), "max_chance": type("integer"),
            "version": ref("named_api_resource"),
        ])),
        ("version_game_index", object(["game_index": type("integer"), "version": ref("named_api_resource")])),
        ("version_group_flavor_text", object([
            "language": ref("named_api_resource"), "text": type("string"), "version_group": ref("named_api_resource"),
        ])),
    ]

    /// ditto's `_replace_common_model` for every model in turn.
    static func replacingCommonModels(in schema: SchemaValue) -> SchemaValue {
        models.reduce(schema) { replacing($1.model, named: reference($1.name), in: $0) }
    }

    /// One model's replacement: a dict equal to `model` once its `$schema` member is
    /// set aside becomes `{"$ref": name}` (plus that `$schema`); other dicts and arrays
    /// are walked, every member value alike (ditto does not tell schema keywords from
    /// property names).
    private static func replacing(_ model: SchemaValue, named name: String, in item: SchemaValue) -> SchemaValue {
        switch item {
        case .string:
            return item
        case .array(let values):
            return .array(values.map { replacing(model, named: name, in: $0) })
        case .object(let members):
            let schemaMember = members.first { $0.0 == "$schema" }
            let withoutSchema = SchemaValue.object(members.filter { $0.0 != "$schema" })
            if withoutSchema == model {
                var result: [(String, SchemaValue)] = [("$ref", .string(name))]
                // Python's `if schema:` keeps only a non-empty `$schema`.
                if let schemaMember, schemaMember.1 != .string(""), schemaMember.1 != .array([]),
                   schemaMember.1 != .object([]) {
                    result.append(schemaMember)
                }
                return .object(result)
            }
            return .object(members.map { ($0.0, replacing(model, named: name, in: $0.1)) })
        }
    }

    /// The common model files ditto writes after the patterns (`save_common_schemas`):
    /// genson's round trip of each model is the model itself with `$schema` first;
    /// the two resource lists then get `next` and `previous` typed `["null", "string"]`.
    /// Paths are relative to `schema/v2/`.
    static func files() -> [(path: String, schema: SchemaValue)] {
        models.map { name, model in
            guard case .object(var members) = model else { return ("\(name).json", model) }
            if name.hasSuffix("resource_list") {
                let nullable: SchemaValue = .object([("type", .array([.string("null"), .string("string")]))])
                members = members.map { key, value in
                    guard key == "properties", case .object(let properties) = value else { return (key, value) }
                    return (key, .object(properties.map { property, schema in
                        (property, property == "next" || property == "previous" ? nullable : schema)
                    }))
                }
            }
            return ("\(name).json", .object([("$schema", .string(SchemaInferenceBuilder.schemaURI))] + members))
        }
    }
}
